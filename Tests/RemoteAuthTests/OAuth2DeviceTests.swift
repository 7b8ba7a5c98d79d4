import HTTPTypes
import RemoteAuth
import Testing

@Suite struct OAuth2DeviceAuthorizationTests {
    @Test(arguments: try OAuth2ResponseVector.all("device_authorization_response"))
    func vector(_ v: OAuth2ResponseVector) throws {
        let response = try OAuth2.DeviceAuthorizationResponse.parse(
            status: try #require(v.status),
            body: Array(try #require(v.body).utf8),
            now: 1000
        )
        #expect(response.deviceCode.reveal() == v.member("device_code")?.stringValue)
        #expect(response.userCode == v.member("user_code")?.stringValue)
        #expect(response.verificationURI == v.member("verification_uri")?.stringValue)
        #expect(response.verificationURIComplete == v.member("verification_uri_complete")?.stringValue)
        #expect(v.member("expires_in") == .integer(response.expiresIn))
        #expect(response.expiresAt == 1000 + response.expiresIn)
        #expect(v.member("interval") == .integer(response.interval))
        #expect(response.additionalParameters.isEmpty)
        #expect(!"\(response)".contains(response.deviceCode.reveal()))
    }

    @Test func defaultsAndRefusals() throws {
        let minimal = try OAuth2.DeviceAuthorizationResponse.parse(
            status: 200,
            body: Array(
                #"{"device_code":"d","user_code":"U","verification_url":"https://g.co/device","expires_in":"600","extra":1}"#
                    .utf8
            ),
            now: 0
        )
        #expect(minimal.interval == 5)
        #expect(minimal.verificationURI == "https://g.co/device")
        #expect(minimal.additionalParameters == ["extra": .integer(1)])
        for body in [
            #"{"user_code":"U","verification_uri":"https://e/d","expires_in":600}"#,
            #"{"device_code":"d","verification_uri":"https://e/d","expires_in":600}"#,
            #"{"device_code":"d","user_code":"U","expires_in":600}"#,
            #"{"device_code":"d","user_code":"U","verification_uri":"https://e/d"}"#,
            #"{"device_code":"d","user_code":"U","verification_uri":"https://e/d","expires_in":0}"#,
            #"{"device_code":"d","user_code":"U","verification_uri":"https://e/d","expires_in":600,"interval":0}"#,
        ] {
            #expect(throws: OAuth2.Error(.malformedResponse, ""), "\(body)") {
                try OAuth2.DeviceAuthorizationResponse.parse(status: 200, body: Array(body.utf8), now: 0)
            }
        }
        let (request, body) = try OAuth2.DeviceAuthorizationResponse.httpRequest(
            to: "https://as.example/device_authorization",
            client: .public(id: "1406020730"),
            scope: ["example_scope"]
        )
        #expect(request.method == .post)
        #expect(
            try OAuth2Script.form(body) == [
                Pair(name: "scope", value: "example_scope"), Pair(name: "client_id", value: "1406020730"),
            ]
        )
    }
}

@Suite struct OAuth2DevicePollingTests {
    let tokens = OAuth2.Tokens(accessToken: "at", tokenType: "Bearer")
    func refused(_ code: OAuth2.ErrorCode) -> OAuth2.Error {
        OAuth2.Error(.serverRefused, "", serverError: .init(code: code))
    }

    @Test func startWaitsThenPolls() {
        var polling = OAuth2.DevicePolling(interval: 5, deadline: 100)
        #expect(polling.handle(.start(now: 0)) == .wait(seconds: 5))
        #expect(polling.handle(.waited(now: 5)) == .poll)
        #expect(polling.handle(.tokens(tokens)) == .done(tokens))
        #expect(polling.isFinished)
        // Finished: every further event repeats the outcome.
        #expect(polling.handle(.waited(now: 6)) == .done(tokens))
    }

    @Test func authorizationPendingKeepsPolling() {
        var polling = OAuth2.DevicePolling(interval: 5, deadline: 100)
        _ = polling.handle(.start(now: 0))
        _ = polling.handle(.waited(now: 5))
        #expect(polling.handle(.refused(refused(.authorizationPending), now: 6)) == .wait(seconds: 5))
        #expect(polling.handle(.waited(now: 11)) == .poll)
        #expect(!polling.isFinished)
    }

    @Test func slowDownAddsFiveSecondsForGood() {
        var polling = OAuth2.DevicePolling(interval: 5, deadline: 1000)
        _ = polling.handle(.start(now: 0))
        _ = polling.handle(.waited(now: 5))
        #expect(polling.handle(.refused(refused(.slowDown), now: 6)) == .wait(seconds: 10))
        #expect(polling.interval == 10)
        _ = polling.handle(.waited(now: 16))
        #expect(polling.handle(.refused(refused(.slowDown), now: 17)) == .wait(seconds: 15))
        _ = polling.handle(.waited(now: 32))
        #expect(polling.handle(.refused(refused(.authorizationPending), now: 33)) == .wait(seconds: 15))
    }

    @Test(arguments: [OAuth2.ErrorCode.expiredToken, .accessDenied, .invalidGrant, .invalidClient])
    func terminalErrorsEndIt(_ code: OAuth2.ErrorCode) {
        var polling = OAuth2.DevicePolling(interval: 5, deadline: 100)
        _ = polling.handle(.start(now: 0))
        _ = polling.handle(.waited(now: 5))
        let error = refused(code)
        #expect(polling.handle(.refused(error, now: 6)) == .fail(error))
        guard case .fail(let failure) = polling.handle(.waited(now: 20)) else {
            Issue.record("expected the failure again")
            return
        }
        #expect(failure.serverError?.code == code)
    }

    @Test func theDeadlineEndsIt() {
        var polling = OAuth2.DevicePolling(interval: 5, deadline: 12)
        _ = polling.handle(.start(now: 0))
        _ = polling.handle(.waited(now: 5))
        #expect(polling.handle(.refused(refused(.authorizationPending), now: 6)) == .wait(seconds: 5))
        #expect(polling.handle(.waited(now: 12)) == .fail(OAuth2.Error(.deviceCodeExpired, "")))
        // Already past the deadline when a pending answer arrives, or at the start.
        var late = OAuth2.DevicePolling(interval: 5, deadline: 10)
        _ = late.handle(.start(now: 0))
        _ = late.handle(.waited(now: 5))
        #expect(
            late.handle(.refused(refused(.authorizationPending), now: 10))
                == .fail(OAuth2.Error(.deviceCodeExpired, ""))
        )
        var expired = OAuth2.DevicePolling(interval: 5, deadline: 10)
        #expect(expired.handle(.start(now: 10)) == .fail(OAuth2.Error(.deviceCodeExpired, "")))
    }

    @Test func eventsOutOfOrderFail() {
        var polling = OAuth2.DevicePolling(interval: 5, deadline: 100)
        #expect(polling.handle(.waited(now: 0)) == .fail(OAuth2.Error(.invalidConfiguration, "")))
        var notPolled = OAuth2.DevicePolling(interval: 5, deadline: 100)
        _ = notPolled.handle(.start(now: 0))
        #expect(notPolled.handle(.tokens(tokens)) == .fail(OAuth2.Error(.invalidConfiguration, "")))
    }

    /// The loop over a scripted transport: pending, slow_down, pending, then tokens; the sleeps
    /// it asked for and the clock it read.
    @Test func loopOverTheTransport() async throws {
        let clock = OAuth2TestClock(1000)
        let transport = ScriptedTransport([
            OAuth2Script.json(400, #"{"error":"authorization_pending"}"#),
            OAuth2Script.json(400, #"{"error":"slow_down"}"#),
            OAuth2Script.json(400, #"{"error":"authorization_pending"}"#),
            OAuth2Script.json(
                200,
                #"{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt"}"#
            ),
        ])
        let flow = OAuth2.Flow(server: oauth2Server, client: .public(id: "c"), transport: transport, now: clock.closure)
        let authorization = OAuth2.DeviceAuthorizationResponse(
            deviceCode: "dc",
            userCode: "WDJB-MJHT",
            verificationURI: "https://as.example/device",
            expiresIn: 1800,
            expiresAt: 1000 + 1800
        )
        let response = try await flow.pollDeviceToken(authorization) { clock.sleep($0) }
        #expect(clock.sleeps == [5, 5, 10, 10])
        #expect(
            response.tokens
                == OAuth2.Tokens(accessToken: "at", tokenType: "Bearer", expiresAt: 1030 + 3600, refreshToken: "rt")
        )
        #expect(transport.sent.count == 4)
        for sent in transport.sent {
            #expect(
                try OAuth2Script.form(sent.body) == [
                    Pair(name: "grant_type", value: "urn:ietf:params:oauth:grant-type:device_code"),
                    Pair(name: "device_code", value: "dc"), Pair(name: "client_id", value: "c"),
                ]
            )
        }
    }

    @Test func loopEndsOnAccessDeniedAndOnTheDeadline() async throws {
        let clock = OAuth2TestClock(0)
        let authorization = OAuth2.DeviceAuthorizationResponse(
            deviceCode: "dc",
            userCode: "U",
            verificationURI: "https://as.example/device",
            expiresIn: 12,
            expiresAt: 12
        )
        let denied = OAuth2.Flow(
            server: oauth2Server,
            client: .public(id: "c"),
            transport: ScriptedTransport([OAuth2Script.json(400, #"{"error":"access_denied"}"#)]),
            now: clock.closure
        )
        let thrown = await #expect(throws: OAuth2.Error.self) {
            try await denied.pollDeviceToken(authorization) { clock.advance($0) }
        }
        #expect(thrown?.serverError?.code == .accessDenied)

        let pending = ScriptedTransport(
            Array(repeating: OAuth2Script.json(400, #"{"error":"authorization_pending"}"#), count: 10)
        )
        let fresh = OAuth2TestClock(0)
        let slow = OAuth2.Flow(server: oauth2Server, client: .public(id: "c"), transport: pending, now: fresh.closure)
        await #expect(throws: OAuth2.Error(.deviceCodeExpired, "")) {
            try await slow.pollDeviceToken(authorization) { fresh.sleep($0) }
        }
        #expect(fresh.sleeps == [5, 5, 5])
        // 0 → wait 5 → poll at 5 → wait 5 → poll at 10 → wait 5 → 15 ≥ 12: expired.
        #expect(pending.sent.count == 2)
    }
}
