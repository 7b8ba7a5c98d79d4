import ArgumentParser
import Foundation
import HTTPTypes
import RemoteAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `request`'s upload option (`-T`, curl's) and its AWS Signature Version 4 options.
struct UploadOptions: ParsableArguments {
    @Option(
        name: .customLong("aws-sigv4"),
        help: ArgumentHelp(
            "Sign with AWS Signature Version 4, aws:amz:REGION:SERVICE (as curl); --user KEY:SECRET, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN).",
            valueName: "provider"
        )
    )
    var awsSigV4: String?

    @Option(
        name: .customLong("aws-payload"),
        help: ArgumentHelp(
            "How --aws-sigv4 covers the body: signed (its SHA-256 in x-amz-content-sha256), unsigned (UNSIGNED-PAYLOAD), or streaming (an aws-chunked upload, each 64 KiB chunk signed: STREAMING-AWS4-HMAC-SHA256-PAYLOAD, S3 only). Default: streaming for -T to service s3, else signed.",
            valueName: "mode"
        )
    )
    var awsPayload: AWSPayloadMode?

    @Option(
        name: [.customShort("T"), .customLong("upload-file")],
        help: ArgumentHelp(
            "Upload FILE as the body, streamed (- reads standard input, first copied to an unlinked temporary file so that its length is known), with PUT unless -X says otherwise; a URL whose path ends in / gets FILE's name appended, as in curl.",
            valueName: "file"
        )
    )
    var uploadFile: String?

    /// `--aws-payload`'s modes.
    enum AWSPayloadMode: String, ExpressibleByArgument, CaseIterable {
        case signed, unsigned, streaming
    }

    /// The chunk size of a streaming upload: the AWS SDKs' 64 KiB.
    static let chunkSize = 64 * 1024

    /// `url`, with `-T FILE`'s name appended when its path is empty or ends in `/` (curl's rule).
    func target(_ url: String) -> String {
        guard let file = uploadFile, file != "-", var components = URLComponents(string: url) else { return url }
        let path = components.percentEncodedPath
        guard path.isEmpty || path.hasSuffix("/") else { return url }
        let name = (file as NSString).lastPathComponent
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? name
        components.percentEncodedPath = (path.isEmpty ? "/" : path) + encoded
        return components.string ?? url
    }

    /// SigV4 for `--aws-sigv4`, the payload covered as `--aws-payload` says; `nil` without it.
    ///
    /// As curl's `--aws-sigv4` (7.88, Debian's): the fields the user gave with `-H` are signed,
    /// the tool's own `Accept` and `Content-Type` are not; a `-H 'X-Amz-Date: …'` is the time
    /// signed at; a `-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD'` (or the streaming value)
    /// chooses the payload mode when `--aws-payload` does not.
    func sigV4(user: String?, headers: [String]) throws -> AWS.SigV4Authenticator? {
        guard let awsSigV4 else {
            if awsPayload != nil { throw CLIFailure("--aws-payload needs --aws-sigv4") }
            return nil
        }
        let signer = try SignSigV4.signer(provider: awsSigV4, user: user, securityToken: nil)
        var given: [HTTPField.Name: String] = [:]
        for header in headers {
            guard let colon = header.firstIndex(of: ":"), let name = HTTPField.Name(String(header[..<colon])) else {
                continue
            }
            given[name] = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let declared = given[HTTPField.Name("x-amz-content-sha256")!]
        let mode =
            awsPayload
            ?? (declared == "UNSIGNED-PAYLOAD"
                ? .unsigned
                : declared == AWS.SigV4Signer.streamingPayload || (uploadFile != nil && signer.service == "s3")
                    ? .streaming : .signed)
        var authenticator: AWS.SigV4Authenticator
        switch mode {
        case .signed: authenticator = AWS.SigV4Authenticator(signer: signer, payload: .signed)
        case .unsigned: authenticator = AWS.SigV4Authenticator(signer: signer, payload: .unsigned)
        case .streaming:
            guard signer.service == "s3" else {
                throw CLIFailure(
                    "--aws-payload streaming is S3's aws-chunked upload: the service must be s3, not \(signer.service)"
                )
            }
            authenticator = AWS.SigV4Authenticator(signer: signer, payload: .streaming(chunkSize: Self.chunkSize))
        }
        authenticator.unsignedFields = Set([HTTPField.Name.accept, .contentType].filter { given[$0] == nil })
        return authenticator
    }

    /// The body of `-T`, read from its file at each pass; `nil` without `-T`.
    func body(hasData: Bool, user: String?) throws -> RemoteAuth.RequestBody? {
        guard let uploadFile else { return nil }
        if hasData {
            throw CLIFailure(
                "-T does not go with -d, --data-raw, --data-binary, --data-urlencode or --json: choose one body"
            )
        }
        if uploadFile == "-", user == "-" {
            throw CLIFailure("-T - and --user - both read standard input: give one of them another way")
        }
        let file = try uploadFile == "-" ? UploadFile.spoolingStandardInput() : UploadFile(path: uploadFile)
        return .stream(length: file.length) {
            let pass = UploadFile.Pass(file: file)
            return AsyncThrowingStream(unfolding: { try pass.next() })
        }
    }
}

/// A file opened for `-T`: each pass reads it from the start with `pread`, so passes (the
/// payload's hash, the send, a resend) never share a position. Never closed: it lives as long as
/// the command.
final class UploadFile: Sendable {
    let descriptor: Int32
    let length: Int

    init(path: String) throws {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0, attributes?[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes?[.size] as? NSNumber)?.intValue
        else {
            throw CLIFailure("cannot read '\(path)' (-T \(path)): check that it is a regular file you may read")
        }
        self.descriptor = descriptor
        self.length = size
    }

    init(descriptor: Int32, length: Int) {
        self.descriptor = descriptor
        self.length = length
    }

    /// Standard input copied to a temporary file (mode 0600, unlinked at once), so that its
    /// length is known up front and the body can be read more than once.
    static func spoolingStandardInput() throws -> UploadFile {
        var template = Array((NSTemporaryDirectory() + "/remote-auth-upload-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw CLIFailure("-T -: cannot create a temporary file for standard input") }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var length = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw CLIFailure("-T -: cannot read standard input") }
            if count == 0 { break }
            var written = 0
            while written < count {
                let step = buffer.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, count - written) }
                if step < 0, errno == EINTR { continue }
                guard step > 0 else { throw CLIFailure("-T -: cannot write standard input to a temporary file") }
                written += step
            }
            length += count
        }
        return UploadFile(descriptor: descriptor, length: length)
    }

    /// One pass over the file, from its first octet, in 64 KiB reads.
    final class Pass: @unchecked Sendable {
        // One consumer calls `next()` at a time (`AsyncThrowingStream(unfolding:)`'s contract).
        private var offset = 0
        private let file: UploadFile

        init(file: UploadFile) { self.file = file }

        func next() throws -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes {
                    pread(file.descriptor, $0.baseAddress, $0.count, off_t(offset))
                }
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else { throw CLIFailure("-T: cannot read the file to upload") }
                if count == 0 { return nil }
                offset += count
                return Array(buffer[..<count])
            }
        }
    }
}
