/// A bus address this client can connect to, from a D-Bus address string such as
/// `DBUS_SESSION_BUS_ADDRESS`: [Server Addresses](https://dbus.freedesktop.org/doc/dbus-specification.html#addresses)
/// and [UNIX Domain Sockets](https://dbus.freedesktop.org/doc/dbus-specification.html#transports-unix-domain-sockets-addresses).
/// Addresses are separated by `;`, each `transport:key=value,…`, values percent-escaped.
enum DBusAddress: Hashable, Sendable, CustomStringConvertible {
    /// `unix:path=…`: a socket file.
    case path(String)
    /// `unix:abstract=…`: a name in Linux's abstract socket namespace (no file).
    case abstract(String)

    var description: String {
        switch self {
        case .path(let path): "unix:path=\(path)"
        case .abstract(let name): "unix:abstract=\(name)"
        }
    }

    /// The addresses of `string` this client speaks, in order.
    ///
    /// - Throws: ``DBusError/Code-swift.struct/noBus`` for an empty string;
    ///   ``DBusError/Code-swift.struct/unsupportedAddress`` when it names none this client
    ///   speaks (`tcp:`, `launchd:`, `unix:tmpdir=`, which is for servers) or is not an address.
    static func parse(_ string: String) throws -> [DBusAddress] {
        guard !string.isEmpty else {
            throw DBusError(.noBus, "DBUS_SESSION_BUS_ADDRESS is empty: there is no session bus")
        }
        var addresses: [DBusAddress] = []
        for entry in string.split(separator: ";") where !entry.isEmpty {
            guard let colon = entry.firstIndex(of: ":") else {
                throw DBusError(
                    .unsupportedAddress,
                    "'\(DBusError.printable(String(entry)))' is not a D-Bus address (no transport)"
                )
            }
            guard entry[..<colon] == "unix" else { continue }
            var keys: [String: String] = [:]
            for pair in entry[entry.index(after: colon)...].split(separator: ",") {
                guard let equals = pair.firstIndex(of: "="), let value = unescape(pair[pair.index(after: equals)...])
                else {
                    throw DBusError(
                        .unsupportedAddress,
                        "'\(DBusError.printable(String(entry)))' has a malformed key=value"
                    )
                }
                keys[String(pair[..<equals])] = value
            }
            if let path = keys["path"] {
                addresses.append(.path(path))
            } else if let name = keys["abstract"] {
                addresses.append(.abstract(name))
            }
        }
        guard !addresses.isEmpty else {
            throw DBusError(
                .unsupportedAddress,
                "the session bus address '\(DBusError.printable(string))' names no unix:path= or unix:abstract= socket"
            )
        }
        return addresses
    }

    /// A value with its `%XX` escapes decoded; `nil` for a bad escape or bytes that are not UTF-8.
    private static func unescape(_ value: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(value.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                let code = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(code)
        }
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
