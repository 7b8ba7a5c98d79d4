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

    /// A flow whose provider answers 200 with each body in turn.
    func flow(answering bodies: [String]) -> (OAuth1.Flow, ScriptedTransport) {
        let transport = ScriptedTransport(
            bodies.map { body in { _, _ in (HTTPResponse(status: .ok), Array(body.utf8)) } }
        )
        let flow = OAuth1.Flow(
            provider: .twitterStyle(baseURL: "https://provider.example"),
            client: .init(key: "k", secret: "s"),
            transport: transport,
            now: { 1_700_000_000 },
            nonce: { "fixed" }
        )
        return (flow, transport)
    }

    let requestTokenAnswer = "oauth_token=rt&oauth_token_secret=rts&oauth_callback_confirmed=true"

    /// The three legs in one call, against a scripted provider: the callback's token is checked
    /// and the verifier goes to step 3, signed with the request token.
    @Test func signInComposesTheThreeLegs() async throws {
        let (flow, transport) = flow(answering: [
            requestTokenAnswer, "oauth_token=at&oauth_token_secret=ats&screen_name=alice",
        ])
        var shown: [String] = []
        let access = try await flow.signIn(callback: "http://127.0.0.1:9/cb") { url in
            shown.append(url)
            return "http://127.0.0.1:9/cb?oauth_token=rt&oauth_verifier=v123"
        }
        #expect(shown == ["https://provider.example/oauth/authorize?oauth_token=rt"])
        #expect(access.credentials == OAuth1.TokenCredentials(token: "at", secret: "ats"))
        #expect(access.screenName == "alice")
        let step3 = try OAuth1.ReceivedRequest(transport.sent[1].request, body: transport.sent[1].body)
        #expect(step3.verifier == "v123")
        #expect(step3.token == "rt")
        try step3.verify(clientSecret: "s", tokenSecret: "rts")
    }

    @Test func signInRefusesACallbackForAnotherToken() async throws {
        let (flow, transport) = flow(answering: [requestTokenAnswer])
        await #expect(throws: OAuth1.FlowError(.callbackMismatch, "")) {
            try await flow.signIn(callback: "http://127.0.0.1:9/cb") { _ in
                "http://127.0.0.1:9/cb?oauth_token=other&oauth_verifier=v"
            }
        }
        #expect(transport.sent.count == 1)
        // PIN flow: nothing typed is refused before step 3.
        let (pinFlow, pinTransport) = self.flow(answering: [requestTokenAnswer])
        await #expect(throws: OAuth1.FlowError(.missingVerifier, "")) {
            try await pinFlow.signIn(callback: "oob") { _ in " \n" }
        }
        #expect(pinTransport.sent.count == 1)
    }

    /// PIN flow: what the user typed, trimmed, is the verifier.
    @Test func signInWithAPin() async throws {
        let (flow, transport) = flow(answering: [requestTokenAnswer, "oauth_token=at&oauth_token_secret=ats"])
        let access = try await flow.signIn(callback: "oob") { _ in " 1234567\n" }
        #expect(access.credentials.token == "at")
        let step3 = try OAuth1.ReceivedRequest(transport.sent[1].request, body: transport.sent[1].body)
        #expect(step3.verifier == "1234567")
    }
}
