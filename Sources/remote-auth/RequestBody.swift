import Foundation
import RemoteAuth

/// The body of `request`, built from curl's data options with curl's rules.
struct RequestBody {
    /// curl's data options.
    enum Kind: Hashable {
        /// `-d`/`--data`: sent as given; `@FILE` (`@-` for stdin) reads it without CR and LF.
        case data
        /// `--data-raw`: sent as given, `@` included.
        case raw
        /// `--data-binary`: as `-d`, but `@FILE` is read byte for byte.
        case binary
        /// `--data-urlencode`: `content`, `=content`, `name=content`, `@file`, `name@file`, the
        /// content percent-encoded (a space as `+`, as curl 7.88 writes it).
        case urlencode
    }

    struct Piece {
        let kind: Kind
        let value: String
    }

    let bytes: [UInt8]
    let isJSON: Bool

    var contentType: String { isJSON ? "application/json" : FormURLEncoding.mediaType }

    /// `nil` when no data option was given. Form pieces are joined with `&`; `--json` pieces are
    /// concatenated, and do not mix with form pieces.
    init?(pieces: [Piece], json: [String]?) throws {
        if let json {
            guard pieces.isEmpty else {
                throw CLIFailure(
                    "--json does not go with -d, --data-raw, --data-binary or --data-urlencode: choose one body"
                )
            }
            var bytes: [UInt8] = []
            for piece in json {
                bytes += try Self.read(piece, option: "--json", strippingNewlines: false)
            }
            self.bytes = bytes
            self.isJSON = true
            return
        }
        guard !pieces.isEmpty else { return nil }
        var bytes: [UInt8] = []
        for (index, piece) in pieces.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "&")) }
            switch piece.kind {
            case .data: bytes += try Self.read(piece.value, option: "-d", strippingNewlines: true)
            case .binary: bytes += try Self.read(piece.value, option: "--data-binary", strippingNewlines: false)
            case .raw: bytes += Array(piece.value.utf8)
            case .urlencode: bytes += try Self.urlencoded(piece.value)
            }
        }
        self.bytes = bytes
        self.isJSON = false
    }

    /// `value` itself, or with a leading `@` the file it names (`-` is standard input), CR and LF
    /// removed when `strippingNewlines`.
    static func read(_ value: String, option: String, strippingNewlines: Bool) throws -> [UInt8] {
        guard value.hasPrefix("@") else { return Array(value.utf8) }
        let bytes = try contents(of: String(value.dropFirst()), option: option)
        guard strippingNewlines else { return bytes }
        return bytes.filter { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
    }

    /// curl's `--data-urlencode`: the part after the first `=` (else after the first `@`, a file
    /// name) is percent-encoded, every octet but `ALPHA / DIGIT / - . _ ~` as `%XY` and a space
    /// as `+`, which form decoders read as a space; the name before it is sent as it is.
    static func urlencoded(_ value: String) throws -> [UInt8] {
        let separator = value.firstIndex(of: "=") ?? value.firstIndex(of: "@")
        var output: [UInt8] = []
        guard let separator else {
            appendEncoded(Array(value.utf8), to: &output)
            return output
        }
        let name = value[..<separator]
        let rest = String(value[value.index(after: separator)...])
        let content =
            value[separator] == "@" ? try contents(of: rest, option: "--data-urlencode") : Array(rest.utf8)
        if !name.isEmpty {
            output += Array(name.utf8)
            output.append(UInt8(ascii: "="))
        }
        appendEncoded(content, to: &output)
        return output
    }

    static func appendEncoded(_ octets: [UInt8], to output: inout [UInt8]) {
        for run in octets.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false).enumerated() {
            if run.offset > 0 { output.append(UInt8(ascii: "+")) }
            FormURLEncoding.appendEncoded(run.element, to: &output)
        }
    }

    static func contents(of path: String, option: String) throws -> [UInt8] {
        if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIFailure("cannot read '\(path)' (\(option) @\(path)): check the path and its permissions")
        }
        return Array(data)
    }
}
