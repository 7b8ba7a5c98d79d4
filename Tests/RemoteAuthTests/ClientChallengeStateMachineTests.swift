import HTTPTypes
import RemoteAuth
import Testing

/// A short, comparable name for an action of the challenge state machine.
func summary(_ action: ChallengeStateMachine.Action) -> String {
    switch action {
    case .none: "none"
    case .lookUpCredentials(let challenges): "lookUp(\(challenges.map(\.scheme).joined(separator: ",")))"
    case .answerDigest(let challenge, _, let count): "digest(\(challenge.nonce), \(count.map(String.init) ?? "fresh"))"
    case .answerBasic(let entry): "basic(\(entry.credential.user))"
    case .handBack: "handBack"
    case .fail(let error, let keys): "fail(\(error.code), forgetting \(keys.count))"
    }
}

func challenge(_ code: Int, _ field: HTTPField.Name, _ values: String...) -> HTTPResponse {
    var fields = HTTPFields()
    for value in values { fields.append(HTTPField(name: field, value: value)) }
    return HTTPResponse(status: .init(code: code), headerFields: fields)
}

@Suite struct ChallengeStateMachineTests {
    let scope = try! AuthScope(url: "https://api.example")
    var basicEntry: ScopedCredential { ScopedCredential(scope: scope, credential: .basic(user: "u", password: "p")) }
    var digestEntry: ScopedCredential { ScopedCredential(scope: scope, credential: .digest(user: "u", password: "p")) }

    func candidates(
        _ response: HTTPResponse,
        _ entry: ScopedCredential
    ) throws -> [(challenge: AuthenticationChallenge, entry: ScopedCredential)] {
        try AuthenticationChallenge.parse(response.headerFields).filter { entry.credential.allows(scheme: $0.scheme) }
            .map { ($0, entry) }
    }

    /// Basic is answered once; the same challenge again fails without a second answer.
    @Test func basicOnceThenFailure() throws {
        var machine = ChallengeStateMachine(party: .origin(scope), isEnabled: true)
        let response = challenge(401, .wwwAuthenticate, "Basic realm=\"r\"")
        #expect(machine.isChallenged(by: response))
        #expect(!machine.isChallenged(by: HTTPResponse(status: .ok)))
        #expect(summary(machine.received(response)) == "lookUp(Basic)")
        #expect(summary(machine.found(try candidates(response, basicEntry), in: response)) == "basic(u)")
        machine.willSend(.basic(basicEntry.credential), authorization: "Basic dTpw")
        #expect(machine.authorization == "Basic dTpw")
        #expect(summary(machine.received(response)) == "lookUp(Basic)")
        let action = machine.found(try candidates(response, basicEntry), in: response)
        #expect(summary(action) == "fail(authenticationFailed, forgetting 0)")
        guard case .fail(let error, _) = action else { return }
        #expect(error.challenge?.parameter("realm") == "r")
        #expect(error.reason == "https://api.example:443 refused the Basic credential for realm \"r\"")
    }

    /// Nothing to answer with and nothing sent: the response goes back to the caller.
    @Test func nothingToAnswerHandsBack() {
        var machine = ChallengeStateMachine(party: .origin(scope), isEnabled: true)
        let response = challenge(401, .wwwAuthenticate, "Negotiate")
        #expect(summary(machine.received(response)) == "lookUp(Negotiate)")
        #expect(summary(machine.found([], in: response)) == "handBack")
        let disabled = ChallengeStateMachine(party: .origin(scope), isEnabled: false)
        #expect(!disabled.isChallenged(by: response))
    }

    /// A preemptive Basic credential that is refused is not sent again.
    @Test func preemptiveBasicRefused() throws {
        var machine = ChallengeStateMachine(party: .origin(scope), isEnabled: true)
        #expect(summary(machine.prepare(.basic(basicEntry))) == "basic(u)")
        #expect(summary(machine.prepare(.basic(digestEntry))) == "none")
        #expect(summary(machine.prepare(.nothing)) == "none")
        machine.willSend(.basic(basicEntry.credential), authorization: "Basic dTpw")
        let response = challenge(401, .wwwAuthenticate, "Basic realm=\"r\"")
        _ = machine.received(response)
        #expect(
            summary(machine.found(try candidates(response, basicEntry), in: response))
                == "fail(authenticationFailed, forgetting 0)"
        )
        // A refused credential when the server now asks for nothing answerable.
        var other = ChallengeStateMachine(party: .origin(scope), isEnabled: true)
        other.willSend(.basic(basicEntry.credential), authorization: "Basic dTpw")
        _ = other.received(challenge(401, .wwwAuthenticate, "Negotiate"))
        #expect(summary(other.found([], in: response)) == "fail(authenticationFailed, forgetting 0)")
    }

    /// Digest: one answer, one stale renewal on top, then a failure that forgets the space.
    @Test func digestStaleRenewalOnce() throws {
        var machine = ChallengeStateMachine(party: .origin(scope), isEnabled: true)
        let first = challenge(
            401,
            .wwwAuthenticate,
            "Digest realm=\"r\", nonce=\"n1\", qop=\"auth\", algorithm=SHA-256"
        )
        let stale = challenge(
            401,
            .wwwAuthenticate,
            "Digest realm=\"r\", nonce=\"n2\", qop=\"auth\", algorithm=SHA-256, stale=true"
        )
        _ = machine.received(first)
        let answer = machine.found(try candidates(first, digestEntry), in: first)
        #expect(summary(answer) == "digest(n1, fresh)")
        let digest = try DigestChallenge(try #require(AuthenticationChallenge.parse(first.headerFields).first))
        let key = DigestProtectionSpaces.Key(origin: scope, challenge: digest)
        let sent = try DigestResponse(
            challenge: digest,
            credentials: DigestCredentials(username: "u", password: "p"),
            method: .get,
            uri: "/",
            body: [],
            nonceCount: 1,
            cnonce: "c",
            qop: nil
        )
        machine.willSend(.digest(key, sent, digestEntry), authorization: sent.authorization)
        _ = machine.received(stale)
        #expect(summary(machine.found(try candidates(stale, digestEntry), in: stale)) == "digest(n2, fresh)")
        machine.willSend(.digest(key, sent, digestEntry), authorization: sent.authorization)
        _ = machine.received(stale)
        #expect(
            summary(machine.found(try candidates(stale, digestEntry), in: stale))
                == "fail(authenticationFailed, forgetting 1)"
        )
    }

    /// No credential crosses plain http to a host that is not loopback, unless opted in.
    @Test func plainHTTP() throws {
        let http = try AuthScope(url: "http://api.example")
        let entry = ScopedCredential(scope: http, credential: .basic(user: "u", password: "p"))
        let response = challenge(401, .wwwAuthenticate, "Basic realm=\"r\"")
        var refused = ChallengeStateMachine(party: .origin(http), isEnabled: true)
        _ = refused.received(response)
        #expect(
            summary(refused.found(try candidates(response, entry), in: response))
                == "fail(plainHTTPRefused, forgetting 0)"
        )
        #expect(summary(refused.prepare(.basic(entry))) == "fail(plainHTTPRefused, forgetting 0)")
        let optedIn = ScopedCredential(scope: http, credential: entry.credential, allowsPlainHTTP: true)
        #expect(summary(refused.prepare(.basic(optedIn))) == "basic(u)")
        let loopback = try AuthScope(url: "http://127.0.0.1:8080")
        let local = ChallengeStateMachine(party: .origin(loopback), isEnabled: true)
        #expect(
            summary(local.prepare(.basic(ScopedCredential(scope: loopback, credential: entry.credential))))
                == "basic(u)"
        )
    }

    /// The proxy's 407 goes to the proxy party only.
    @Test func proxyParty() throws {
        let proxy = ChallengeStateMachine(party: .proxy(try AuthScope(url: "http://127.0.0.1:3128")), isEnabled: true)
        #expect(proxy.isChallenged(by: HTTPResponse(status: .proxyAuthenticationRequired)))
        #expect(!proxy.isChallenged(by: HTTPResponse(status: .unauthorized)))
        #expect(proxy.party.authorizationField == .proxyAuthorization)
        #expect(proxy.party.name == "the proxy http://127.0.0.1:3128")
    }

    /// One malformed field does not hide a good challenge in another; when every field is
    /// malformed, nothing sent hands the response back, a refused credential fails naming the
    /// parse error.
    @Test func malformedFields() throws {
        var machine = ChallengeStateMachine(party: .origin(scope), isEnabled: true)
        let mixed = challenge(401, .wwwAuthenticate, "Basic realm=\"unterminated", "Digest realm=\"r\", nonce=\"n\"")
        #expect(summary(machine.received(mixed)) == "lookUp(Digest)")
        #expect(machine.parseErrors.map(\.code) == [.unterminatedQuotedString])

        let broken = challenge(401, .wwwAuthenticate, "Basic realm=\"x", "=")
        var fresh = ChallengeStateMachine(party: .origin(scope), isEnabled: true)
        #expect(summary(fresh.received(broken)) == "lookUp()")
        #expect(summary(fresh.found([], in: broken)) == "handBack")
        #expect(fresh.parseErrors.count == 2)

        var refused = ChallengeStateMachine(party: .origin(scope), isEnabled: true)
        refused.willSend(.basic(basicEntry.credential), authorization: "Basic dTpw")
        _ = refused.received(broken)
        let action = refused.found([], in: broken)
        guard case .fail(let error, _) = action else {
            Issue.record("expected a failure, got \(summary(action))")
            return
        }
        #expect(error.code == .authenticationFailed)
        #expect(error.reason.contains("every WWW-Authenticate field is malformed; the first: WWW-Authenticate field 1"))
    }

    /// After a Digest answer: a wrong rspauth fails and forgets the space, nextnonce renews it.
    @Test func authenticationInfo() throws {
        let header = "Digest realm=\"r\", nonce=\"n1\", qop=\"auth\", algorithm=SHA-256"
        let digest = try DigestChallenge(headerValue: header)
        let key = DigestProtectionSpaces.Key(origin: scope, challenge: digest)
        let sent = try DigestResponse(
            challenge: digest,
            credentials: DigestCredentials(username: "u", password: "p"),
            method: .get,
            uri: "/",
            body: [],
            nonceCount: 1,
            cnonce: "c",
            qop: nil
        )
        var machine = ChallengeStateMachine(party: .origin(scope), isEnabled: true)
        #expect(summary(machine.prepare(.nothing)) == "none")
        machine.willSend(.digest(key, sent, digestEntry), authorization: sent.authorization)
        let wrong = HTTPResponse(
            status: .ok,
            headerFields: [.authenticationInfo: "qop=auth, rspauth=\"00\", cnonce=\"c\", nc=00000001"]
        )
        guard case .fail(let error, let forgotten) = machine.completed(wrong, body: []) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .invalidServerProof && forgotten == key)
        let next = HTTPResponse(status: .ok, headerFields: [.authenticationInfo: "nextnonce=\"n9\""])
        guard case .renew(let renewed, let nonce) = machine.completed(next, body: []) else {
            Issue.record("expected a renewal")
            return
        }
        #expect(renewed == key && nonce == "n9")
        guard case .none = machine.completed(HTTPResponse(status: .ok), body: []) else {
            Issue.record("expected nothing")
            return
        }
    }
}

@Suite struct DigestProtectionSpacesTests {
    let scope = try! AuthScope(url: "https://api.example")
    var entry: ScopedCredential { ScopedCredential(scope: scope, credential: .digest(user: "u", password: "p")) }

    /// The nonce is reused with nc counting up; nextnonce restarts at 1; another origin or a
    /// removed space gets nothing.
    @Test func nonceReuse() throws {
        var spaces = DigestProtectionSpaces()
        let digest = try DigestChallenge(headerValue: "Digest realm=\"r\", nonce=\"n1\", qop=\"auth\"")
        let key = DigestProtectionSpaces.Key(origin: scope, challenge: digest)
        #expect(spaces.nextUse(origin: scope, path: "/a") == nil)
        #expect(spaces.start(key, challenge: digest, entry: entry, path: "/dir/x?q") == 1)
        #expect(spaces.nextUse(origin: scope, path: "/other")?.nonceCount == 2)
        #expect(spaces.nextUse(origin: scope, path: "/dir/y")?.nonceCount == 3)
        spaces.renew(key, nextnonce: "n2")
        let renewed = spaces.nextUse(origin: scope, path: "/dir/y")
        let use = try #require(renewed)
        #expect(use.nonceCount == 1 && use.challenge.nonce == "n2")
        #expect(spaces.nextUse(origin: try AuthScope(url: "https://api.example:8443"), path: "/dir/y") == nil)
        spaces.remove(key)
        #expect(spaces.isEmpty && spaces.nextUse(origin: scope, path: "/dir/y") == nil)
    }

    /// A space with `domain` covers only its URIs' paths and the challenged directories; the
    /// longest matching prefix wins.
    @Test func domainPrefixes() throws {
        var spaces = DigestProtectionSpaces()
        let narrow = try DigestChallenge(
            headerValue: "Digest realm=\"a\", nonce=\"na\", domain=\"/a/ https://api.example/b/\""
        )
        let wide = try DigestChallenge(headerValue: "Digest realm=\"w\", nonce=\"nw\"")
        _ = spaces.start(.init(origin: scope, challenge: narrow), challenge: narrow, entry: entry, path: "/a/x")
        #expect(spaces.nextUse(origin: scope, path: "/b/1")?.challenge.realm == "a")
        #expect(spaces.nextUse(origin: scope, path: "/c/1") == nil)
        _ = spaces.start(.init(origin: scope, challenge: wide), challenge: wide, entry: entry, path: "/c/1")
        #expect(spaces.nextUse(origin: scope, path: "/a/deeper/1")?.challenge.realm == "a")
        #expect(spaces.nextUse(origin: scope, path: "/c/2")?.challenge.realm == "w")
        #expect(spaces.nextUse(origin: scope, path: "/z")?.challenge.realm == "w")
    }
}
