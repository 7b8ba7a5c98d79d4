import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import RemoteAuth
import RemoteAuthSandbox
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A `remote-auth sandbox` process, its output in a file.
final class SandboxProcess {
    let process = Process()
    let output: URL
    let handle: FileHandle

    init(_ arguments: [String]) throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        handle = try FileHandle(forWritingTo: output)
        process.executableURL = try CLI.binary()
        process.arguments = ["sandbox", "--port", "0"] + arguments
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    /// Waits for the banner (or the process's end) and returns its lines. What it tells apart
    /// is "printed its banner" from "exited": a slow start (a loaded machine, a sanitizer) is
    /// waited for, and only a hang is cut, at `CLI.hangGuard`.
    func banner() async throws -> [String] {
        var text = ""
        let clock = ContinuousClock()
        let deadline = clock.now + CLI.hangGuard
        while !text.contains("user alice"), process.isRunning, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
        }
        text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
        return text.split(separator: "\n").map(String.init)
    }

    func baseURL() async throws -> String {
        let first = try await banner().first ?? ""
        return String(first.dropFirst("RemoteAuth sandbox listening on ".count))
    }

    /// How many token requests the sandbox has answered with `200`, from its request log.
    func tokenRequests() throws -> Int {
        String(decoding: try Data(contentsOf: output), as: UTF8.self).split(separator: "\n")
            .filter { $0 == "POST /oauth2/token 200" }.count
    }

    func kill() async {
        Glibc.kill(process.processIdentifier, SIGKILL)
        await CLI.exited(process)
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? handle.close()
        try? FileManager.default.removeItem(at: output)
    }
}

func httpExchange(_ request: HTTPRequest, body: [UInt8]? = nil) async throws -> (Int, String) {
    let client = CLI.httpClient()
    do {
        let result = try await exchange(request, body: body, client: client)
        try await client.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        throw error
    }
}

private func exchange(_ request: HTTPRequest, body: [UInt8]?, client: HTTPClient) async throws -> (Int, String) {
    var outgoing = HTTPClientRequest(url: request.absoluteURL)
    outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
    for field in request.headerFields { outgoing.headers.add(name: field.name.rawName, value: field.value) }
    if let body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
    let response = try await client.execute(outgoing, timeout: CLI.hangGuardAmount)
    let buffer = try await response.body.collect(upTo: 1 << 20)
    return (Int(response.status.code), String(buffer: buffer))
}

@Suite(.timeLimit(.minutes(5))) struct SandboxStateCLITests {
    /// `--state FILE`: a request token issued before a SIGKILL is still known after a restart,
    /// and the file is created 0600.
    @Test func stateSurvivesAKill() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString).json")
            .path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let first = try SandboxProcess(["--state", state])
        let base = try await first.baseURL()
        let signer = try OAuth1.Signer(client: .init(key: "demo-consumer", secret: "demo-consumer-secret"))
        let signed = try signer.sign(
            try HTTPRequest(method: .post, absoluteURL: base + "/oauth/request_token"),
            options: .init(callback: "oob"),
            nonce: OAuth1.Nonce.random(),
            timestamp: String(Int64(Date().timeIntervalSince1970))
        )
        let (status, body) = try await httpExchange(signed.request)
        #expect(status == 200)
        let token = try #require(
            try FormURLEncoding.firstValue(named: "oauth_token", in: body)
        )
        await first.kill()

        let mode = try FileManager.default.attributesOfItem(atPath: state)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)

        let second = try SandboxProcess(["--state", state])
        let page = try await httpExchange(
            try HTTPRequest(
                method: .get,
                absoluteURL: try await second.baseURL() + "/oauth/authorize?oauth_token=" + token
            )
        )
        #expect(page.0 == 200)
        #expect(page.1.contains("RemoteAuth Demo"))
    }

    /// `--cert/--key`: serves HTTPS with the given certificate and prints its SPKI pin.
    @Test func givenCertificate() async throws {
        let material = try SandboxTLS.selfSigned()
        let cert = try CLI.temporaryFile(material.certificateChainPEM)
        let key = try CLI.temporaryFile(material.privateKeyPEM)
        let sandbox = try SandboxProcess(["--cert", cert, "--key", key])
        let lines = try await sandbox.banner()
        #expect(lines.first?.hasPrefix("RemoteAuth sandbox listening on https://127.0.0.1:") == true)
        #expect(
            lines.dropFirst().first == "TLS SPKI pin: sha256//"
                + (try SandboxTLS.spkiSHA256(certificateChainPEM: material.certificateChainPEM))
        )
    }

    @Test func unreadableCertificate() async throws {
        let result = try await CLI.run(["sandbox", "--port", "0", "--cert", "/nonexistent.pem", "--key", "/nonexistent.key"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("remote-auth: unreadable certificate"))
    }
}
