import Hummingbird
import RemoteAuth

/// Device authorization ([RFC 8628 §3.1](https://www.rfc-editor.org/rfc/rfc8628#section-3.1)),
/// `POST /oauth2/device_authorization`, served by ``TokenRoutes`` (the same client
/// authentication); ``DeviceRoutes`` is the page where the user enters the code.
extension TokenRoutes {
    /// [RFC 8628 §3.2](https://www.rfc-editor.org/rfc/rfc8628#section-3.2).
    struct DeviceAuthorizationJSON: Encodable {
        let deviceCode: String
        let userCode: String
        let verificationURI: String
        let verificationURIComplete: String
        let expiresIn: Int64
        let interval: Int64

        enum CodingKeys: String, CodingKey {
            case deviceCode = "device_code"
            case userCode = "user_code"
            case verificationURI = "verification_uri"
            case verificationURIComplete = "verification_uri_complete"
            case expiresIn = "expires_in"
            case interval
        }
    }

    /// `POST /oauth2/device_authorization`.
    func deviceAuthorization(_ request: Request, peer: PeerCertificate?) async throws -> Response {
        let parameters = try await OAuth2Parameters.body(of: request)
        let (client, _) = try await clients.authenticate(request, parameters, peer: peer)
        guard let scope = OAuth2Rules.scope(parameters["scope"], allowed: configuration.oauth2Scopes) else {
            throw OAuth2Problem(.invalidScope, "scope names a scope this server does not grant")
        }
        let now = configuration.now()
        let userCode = Self.userCode(configuration.random)
        let deviceCode = await store.addDeviceCode(
            OAuth2Store.DeviceCode(
                clientID: client.id,
                scope: scope,
                userCode: userCode,
                expiresAt: now + configuration.deviceCodeTTL,
                interval: configuration.devicePollingInterval,
                lastPoll: nil,
                state: .pending
            )
        )
        let verification = issuer.url + "/device"
        return OAuth2JSON.response(
            DeviceAuthorizationJSON(
                deviceCode: deviceCode,
                userCode: userCode,
                verificationURI: verification,
                verificationURIComplete: verification + "?user_code=" + userCode,
                expiresIn: configuration.deviceCodeTTL,
                interval: configuration.devicePollingInterval
            )
        )
    }

    /// `BCDF-GHJK`: eight consonants without vowels (no words) in two groups, drawn without
    /// bias ([RFC 8628 §6.1](https://www.rfc-editor.org/rfc/rfc8628#section-6.1)).
    static func userCode(_ random: RandomSource) -> String {
        let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
        var letters: [Character] = []
        while letters.count < 8 {
            // 240 = 12 × 20: a byte below it maps to the alphabet evenly.
            for byte in random.bytes(8 - letters.count) where byte < 240 && letters.count < 8 {
                letters.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return String(letters[0..<4]) + "-" + String(letters[4...])
    }
}
