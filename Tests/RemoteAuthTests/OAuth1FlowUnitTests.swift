import HTTPTypes
import RemoteAuth
import Testing

/// Provider answers a real sandbox never gives: the flow refuses them with typed errors.
@Suite struct OAuth1FlowUnitTests {
    func flow(answering body: String, status: Int = 200) -> (OAuth1.Flow, ScriptedTransport) {
        let transport = ScriptedTransport([
            { _, _ in (HTTPResponse(status: .init(code: status)), Array(body.utf8)) }
        ])
        let flow = OAuth1.Flow(
            provider: .twitterStyle(baseURL: "https://provider.example"),
            client: .init(key: "k", secret: "s"),
            transport: transport,
            now: { 1_700_000_000 },
            nonce: { "fixed" }
        )
        return (flow, transport)
    }

    @Test func missingTokenSecret() async throws {
        let (flow, _) = flow(answering: "oauth_token=t&oauth_callback_confirmed=true")
        let error = await #expect(throws: OAuth1.FlowError.self) { try await flow.requestToken(callback: "oob") }
        #expect(error?.code == .malformedResponse)
        #expect(error?.reason.contains("oauth_token_secret") == true)
    }

    @Test(arguments: [
        "oauth_token=t&oauth_token_secret=s", "oauth_token=t&oauth_token_secret=s&oauth_callback_confirmed=false",
    ])
    func callbackNotConfirmed(body: String) async throws {
        let (flow, _) = flow(answering: body)
        let error = await #expect(throws: OAuth1.FlowError.self) { try await flow.requestToken(callback: "oob") }
        #expect(error?.code == .callbackNotConfirmed)
    }

    /// The request token request carries `oauth_callback`, signed (exact base string).
    @Test func requestTokenIsSignedWithTheCallback() async throws {
        let (flow, transport) = flow(answering: "oauth_token=t&oauth_token_secret=s&oauth_callback_confirmed=true")
        let token = try await flow.requestToken(callback: "oob")
        #expect(token == OAuth1.RequestToken(token: "t", secret: "s"))
        let sent = try #require(transport.sent.first)
        let received = try OAuth1.ReceivedRequest(sent.request, body: sent.body)
        #expect(received.callback == "oob")
        #expect(
            received.signatureBaseString
                == "POST&https%3A%2F%2Fprovider.example%2Foauth%2Frequest_token&oauth_callback%3Doob%26oauth_consumer_key%3Dk%26oauth_nonce%3Dfixed%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1700000000%26oauth_version%3D1.0"
        )
        try received.verify(clientSecret: "s", tokenSecret: nil)
    }

    @Test func refusalCarriesTheProblem() async throws {
        let (flow, _) = flow(answering: "oauth_problem=consumer_key_unknown", status: 401)
        let error = await #expect(throws: OAuth1.FlowError.self) { try await flow.requestToken(callback: "oob") }
        #expect(error?.code == .providerRefused)
        #expect(error?.problem == .consumerKeyUnknown)
    }
}
