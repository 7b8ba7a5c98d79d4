import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-thread HTTP/1.1 server on 127.0.0.1 for CLI tests: it answers each request with the
/// request's own bytes as the body (`200 OK`, or the status that a path `/status/NNN` names; a
/// path `/canned/NNN/BODY` answers BODY, percent-decoded, as JSON), so
/// a test sees exactly what `remote-auth` put on the wire. With `silent`, it accepts connections
/// and never answers, and keeps how long each stayed open before the client closed it
/// (`heldConnections`). It is also an http proxy that answers CONNECT with `200` (or `407` without
/// the Basic `proxyCredential`, when one is set) and echoes the tunnelled request after the
/// CONNECT head. With `documents`, a path it gives a body for is answered `200` with that body
/// as JSON (`documents(base, path)`, so that a document can name its own URL).
final class EchoServer: @unchecked Sendable {
    // `listener` is set once in init and closed once in `stop()`; the accept thread only reads it.
    let port: Int
    private let listener: Int32
    private let held = Locked<[Duration]>([])

    /// With `silent`: how long each connection the client closed stayed open, from its accept to
    /// the client's close, in the order they closed. This is the request's own time as the
    /// server saw it, whatever the time the client process took to start.
    var heldConnections: [Duration] { held.withLock { $0 } }

    /// `heldConnections` once `count` connections have closed (or the hang guard has passed): the
    /// server's thread sees a close a moment after the client's process has ended.
    func heldConnections(count: Int) async throws -> [Duration] {
        let clock = ContinuousClock()
        let deadline = clock.now + CLI.hangGuard
        while heldConnections.count < count, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        return heldConnections
    }

    init(
        silent: Bool = false,
        proxyCredential: String? = nil,
        refusesTunnels: Bool = false,
        documents: (@Sendable (_ base: String, _ path: String) -> String?)? = nil
    ) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw CLI.Missing(description: "cannot listen") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        if silent {
            Thread.detachNewThread { [fd, self] in
                while true {
                    let client = accept(fd, nil, nil)
                    if client < 0 { return }
                    Thread.detachNewThread {
                        let clock = ContinuousClock()
                        let accepted = clock.now
                        var buffer = [UInt8](repeating: 0, count: 4096)
                        while read(client, &buffer, buffer.count) > 0 {}
                        let duration = clock.now - accepted
                        self.held.withLock { $0.append(duration) }
                        close(client)
                    }
                }
            }
            return
        }
        let base = "http://127.0.0.1:\(port)"
        Thread.detachNewThread { [fd] in
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                Self.answer(
                    client,
                    proxyCredential: proxyCredential,
                    refusesTunnels: refusesTunnels,
                    documents: documents.map { serve in { serve(base, $0) } }
                )
                close(client)
            }
        }
    }

    var base: String { "http://127.0.0.1:\(port)" }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private static func answer(
        _ client: Int32,
        proxyCredential: String?,
        refusesTunnels: Bool = false,
        documents: ((String) -> String?)? = nil
    ) {
        var received = readRequest(client)
        let line = String(decoding: received.prefix(while: { $0 != 13 }), as: UTF8.self).split(separator: " ")
        if let documents, line.count == 3, line[0] == "GET", let document = documents(String(line[1])) {
            let body = Array(document.utf8)
            send(
                client,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            )
            _ = body.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            return
        }
        if received.starts(with: Array("CONNECT ".utf8)), refusesTunnels {
            send(client, "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            return
        }
        if received.starts(with: Array("CONNECT ".utf8)) {
            let head = String(decoding: received, as: UTF8.self).lowercased()
            if let proxyCredential,
                !head.contains(
                    "\r\nproxy-authorization: basic \(Data(proxyCredential.utf8).base64EncodedString().lowercased())\r\n"
                )
            {
                send(
                    client,
                    "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"proxy\"\r\nContent-Length: 0\r\n\r\n"
                )
                return
            }
            send(client, "HTTP/1.1 200 Connection established\r\n\r\n")
            received += readRequest(client)
        }
        let requestLine = String(decoding: received.prefix(while: { $0 != 13 }), as: UTF8.self)
        // `/canned/NNN/BODY`: answers status NNN with the percent-decoded BODY as JSON (a hostile
        // token endpoint, for instance).
        if let range = requestLine.range(of: " /canned/") {
            let rest = requestLine[range.upperBound...].prefix { $0 != " " }
            let code = rest.prefix(3)
            let body = Array((String(rest.dropFirst(4)).removingPercentEncoding ?? "").utf8)
            let head =
                "HTTP/1.1 \(code) Canned\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            let response = Array(head.utf8) + body
            _ = response.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            return
        }
        var status = "200 OK"
        if let range = requestLine.range(of: " /status/") {
            let code = requestLine[range.upperBound...].prefix(3)
            status = code == "404" ? "404 Not Found" : code + " Status"
        }
        let head =
            "HTTP/1.1 \(status)\r\nContent-Type: text/plain\r\nContent-Length: \(received.count)\r\nConnection: close\r\n\r\n"
        let response = Array(head.utf8) + received
        _ = response.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
    }

    private static func send(_ client: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
    }

    /// One request's head and body (by Content-Length).
    private static func readRequest(_ client: Int32) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headEnd: Int?
        var contentLength = 0
        while true {
            if let end = headEnd, received.count >= end + contentLength { break }
            let count = read(client, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
            if headEnd == nil, let range = find([13, 10, 13, 10], in: received) {
                headEnd = range + 4
                let head = String(decoding: received[0..<range], as: UTF8.self).lowercased()
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    contentLength =
                        Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
        }
        return received
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where Array(haystack[index..<(index + needle.count)]) == needle
        {
            return index
        }
        return nil
    }
}

/// Runs `body` with a running echo server, stopped afterwards.
func withEchoServer<T>(
    silent: Bool = false,
    proxyCredential: String? = nil,
    refusesTunnels: Bool = false,
    documents: (@Sendable (_ base: String, _ path: String) -> String?)? = nil,
    _ body: (EchoServer) async throws -> T
) async throws -> T {
    let server = try EchoServer(
        silent: silent,
        proxyCredential: proxyCredential,
        refusesTunnels: refusesTunnels,
        documents: documents
    )
    defer { server.stop() }
    return try await body(server)
}
