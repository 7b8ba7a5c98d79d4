import HTTPTypes
import Logging
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox
import Testing

/// A log handler that keeps every rendered line, metadata included.
struct CapturingLogHandler: LogHandler {
    let sink: LogSink

    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }
    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        let rendered = "\(event.level) \(event.message) \(event.metadata.map { "\($0)" } ?? "")"
        sink.lines.withLock { $0.append(rendered) }
    }
}

final class LogSink: Sendable {
    let lines = Locked<[String]>([])
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
    var logger: Logger {
        var logger = Logger(label: "test") { _ in CapturingLogHandler(sink: self) }
        logger.logLevel = Logger.Level.trace
        return logger
    }
}

@Suite(.timeLimit(.minutes(5))) struct ClientLoggingTests {
    /// At trace level every exchange is logged with its fields, and neither the password, the
    /// Basic token, the Digest response nor a cookie value appears.
    @Test func secretsAreRedacted() async throws {
        try await Sandbox.withSandbox { sandbox in
            let sink = LogSink()
            try await AsyncHTTPClientTransport.withTransport { transport in
                let store = InMemoryCredentialStore()
                await store.add(alice, for: try AuthScope(url: sandbox.baseURL))
                var configuration = AuthenticatingClient.Configuration()
                configuration.logger = sink.logger
                configuration.preemptive = true
                let recording = RecordingTransport(transport)
                let client = AuthenticatingClient(
                    transport: recording,
                    credentials: store,
                    configuration: configuration
                )
                let cookie: HTTPFields = [.cookie: "session=cookie-secret-value"]
                #expect(try await client.getText(sandbox.baseURL + "/basic/", headers: cookie).status == 200)
                #expect(
                    try await client.getText(sandbox.baseURL + "/digest/SHA-256/auth/", headers: cookie).status == 200
                )
                let digestAnswer = try #require(recording.hops.compactMap(\.authorization).last)
                let response = try DigestAuthorization(headerValue: digestAnswer).response
                let text = sink.text
                #expect(text.contains("Authorization: Basic <redacted>"))
                #expect(text.contains("Authorization: Digest <redacted>"))
                #expect(text.contains("Cookie: <redacted>"))
                for secret in ["wonderland", "YWxpY2U6d29uZGVybGFuZA", response, "cookie-secret-value"] {
                    #expect(!text.contains(secret))
                }
            }
        }
    }

    /// A JWKS URL with a key in its query (some providers hand out such URLs) is logged with the
    /// value redacted, as the span shows it.
    @Test func keySetURLsAreRedacted() async throws {
        try await Sandbox.withSandbox { sandbox in
            let sink = LogSink()
            try await AsyncHTTPClientTransport.withTransport { transport in
                let cache = try JOSE.KeySetCache(
                    url: sandbox.baseURL + "/oauth2/jwks?api_key=jwks-query-secret",
                    transport: transport,
                    now: UnixTime.now,
                    logger: sink.logger
                )
                #expect(try await !cache.keySet().keys.isEmpty)
            }
            #expect(sink.text.contains("key set fetched"), "\(sink.text)")
            #expect(sink.text.contains("/oauth2/jwks?api_key=<redacted>"), "\(sink.text)")
            #expect(!sink.text.contains("jwks-query-secret"))
        }
    }
}
