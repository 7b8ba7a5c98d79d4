import HTTPTypes
import Hummingbird
import RemoteAuth

/// DPoP ([RFC 9449](https://www.rfc-editor.org/rfc/rfc9449)) at the sandbox: the proofs'
/// replay cache and the server nonces, one for the authorization server and one for the
/// resource server (a client keeps them per origin; here both share one, so a client that
/// moves between the two meets both challenges). Nonces are drawn on first use, so seeded
/// runs that never use DPoP repeat.
actor SandboxDPoP {
    let verifier = OAuth2.DPoP.ProofVerifier()
    private var replay = OAuth2.DPoP.ReplayCache(capacity: 10_000)
    private var nonces: [Audience: String] = [:]
    private let random: RandomSource

    enum Audience: Hashable, Sendable { case authorizationServer, resourceServer }

    init(random: RandomSource) { self.random = random }

    /// The current nonce for `audience`.
    func nonce(for audience: Audience) -> String {
        if let nonce = nonces[audience] { return nonce }
        let nonce = random.alphanumeric(bytes: 16)
        nonces[audience] = nonce
        return nonce
    }

    /// Verifies a proof and records its `jti` (§4.3, §11.1).
    func verify(
        _ proof: String,
        method: HTTPRequest.Method,
        url: String,
        now: Int64,
        accessToken: Secret? = nil,
        boundTo thumbprint: String? = nil,
        nonce: String? = nil
    ) throws -> OAuth2.DPoP.VerifiedProof {
        try verifier.verify(
            proof,
            method: method,
            url: url,
            at: now,
            accessToken: accessToken,
            boundTo: thumbprint,
            nonce: nonce,
            replayCache: &replay
        )
    }
}

extension SandboxConfiguration {
    /// The URL a request was sent to, as its client wrote it in `htu`: scheme, the `Host` it
    /// named, the path.
    func requestURL(_ request: Request, issuer: String) -> String {
        let scheme = tls == nil ? "http" : "https"
        let authority = request.head.authority ?? request.headers[HTTPField.Name("Host")!]
        let base = authority.map { scheme + "://" + $0 } ?? issuer
        return base + request.uri.path
    }
}

extension TokenRoutes {
    /// The token endpoint's DPoP step ([RFC 9449 §5](https://www.rfc-editor.org/rfc/rfc9449#section-5)):
    /// a request with a proof gets tokens bound to its key (the returned `jkt`); a client
    /// registered with ``SandboxConfiguration/OAuth2Client/requireDPoP`` must send one; with
    /// ``SandboxConfiguration/dpopNonce`` the proof must carry the server's nonce
    /// ([§8](https://www.rfc-editor.org/rfc/rfc9449#section-8)).
    func dpopBinding(_ request: Request, client: SandboxConfiguration.OAuth2Client) async throws -> String? {
        guard let jkt = try await store.dpopThumbprint(of: request, configuration: configuration, issuer: issuer.url)
        else {
            if client.requireDPoP { throw OAuth2Problem(.invalidDPoPProof, "this client must send a DPoP proof") }
            return nil
        }
        return jkt
    }

    /// An authorization code bound to a key (`dpop_jkt`) is redeemed only with a proof of that
    /// key: "If they do not match, it MUST reject the request"
    /// ([RFC 9449 §10](https://www.rfc-editor.org/rfc/rfc9449#section-10)). The sandbox answers
    /// `invalid_grant`, the grant being what does not fit the request (the code is used up, as
    /// after a wrong PKCE verifier).
    static func checkCodeBinding(_ bound: String?, proof jkt: String?) throws {
        guard let bound else { return }
        guard let jkt else {
            throw OAuth2Problem(
                .invalidGrant,
                "the authorization code is bound to a DPoP key (dpop_jkt): the token request needs a proof of it (RFC 9449 §10)"
            )
        }
        guard constantTimeEquals(bound, jkt) else {
            throw OAuth2Problem(
                .invalidGrant,
                "the DPoP proof's key is not the one the authorization code is bound to (dpop_jkt, RFC 9449 §10)"
            )
        }
    }

    /// `DPoP-Nonce` on the token response, when nonces are on (§8: the next one to use).
    func dpopResponseHeaders() async -> HTTPFields {
        guard configuration.dpopNonce else { return [:] }
        return [.dpopNonce: await store.dpop.nonce(for: .authorizationServer)]
    }

    /// A refresh token bound to a key is refreshed only with a proof of that key
    /// ([RFC 9449 §5](https://www.rfc-editor.org/rfc/rfc9449#section-5)).
    static func checkRefreshBinding(_ bound: String?, proof jkt: String?) throws {
        guard let bound else { return }
        guard let jkt, constantTimeEquals(bound, jkt) else {
            throw OAuth2Problem(.invalidDPoPProof, "the refresh token is bound to another DPoP key")
        }
    }
}

extension OAuth2Store {
    /// The thumbprint of the key of the request's DPoP proof, verified for the URL it was sent to
    /// ([RFC 9449 §4.3](https://www.rfc-editor.org/rfc/rfc9449#section-4.3)), with the
    /// authorization server's nonce when ``SandboxConfiguration/dpopNonce`` is on
    /// ([§8](https://www.rfc-editor.org/rfc/rfc9449#section-8)); `nil` without a proof. For the
    /// token endpoint and the PAR endpoint ([§10.1](https://www.rfc-editor.org/rfc/rfc9449#section-10.1)).
    func dpopThumbprint(
        of request: Request,
        configuration: SandboxConfiguration,
        issuer: String
    ) async throws -> String? {
        let proof: String?
        do {
            proof = try OAuth2.DPoP.ProofVerifier.proof(in: request.headers)
        } catch {
            throw OAuth2Problem(.invalidDPoPProof, "\(error)")
        }
        guard let proof else { return nil }
        let nonce = configuration.dpopNonce ? await dpop.nonce(for: .authorizationServer) : nil
        do {
            return try await dpop.verify(
                proof,
                method: request.method,
                url: configuration.requestURL(request, issuer: issuer),
                now: configuration.now(),
                nonce: nonce
            ).thumbprint
        } catch let error as OAuth2.DPoP.Error where error.asksForNonce {
            var problem = OAuth2Problem(.useDPoPNonce, "the authorization server requires a DPoP nonce")
            problem.headers[.dpopNonce] = nonce
            throw problem
        } catch let error as OAuth2.DPoP.Error {
            throw OAuth2Problem(.invalidDPoPProof, error.reason)
        }
    }
}

/// A resource request with a DPoP token, as the status API and UserInfo check it.
struct DPoPResourceCheck: Sendable {
    let store: OAuth2Store
    let configuration: SandboxConfiguration
    /// The protected resource's metadata URL for `resource_metadata` in the challenges
    /// ([RFC 9728 §5.1](https://www.rfc-editor.org/rfc/rfc9728#section-5.1)); `nil` for UserInfo.
    var metadataURL: String? = nil

    /// `Authorization: DPoP <token>` with its proof ([RFC 9449 §7.1](https://www.rfc-editor.org/rfc/rfc9449#section-7.1)):
    /// the token bound to the proof's key, `ath` its hash, the resource server's nonce when
    /// nonces are on ([§9](https://www.rfc-editor.org/rfc/rfc9449#section-9)).
    func record(_ request: Request, token: String) async throws -> OAuth2Store.AccessToken {
        guard BearerAuthenticator.isB64Token(token) else {
            throw challenge(.invalidRequest, "the DPoP credentials are not a b64token", status: .badRequest)
        }
        guard let record = await store.accessToken(token, now: configuration.now()), let jkt = record.jkt else {
            throw challenge(.invalidToken, "the access token is unknown, expired, revoked or not DPoP-bound")
        }
        let proof: String
        do {
            guard let found = try OAuth2.DPoP.ProofVerifier.proof(in: request.headers) else {
                throw challenge(.invalidDPoPProof, "a DPoP token needs a DPoP proof")
            }
            proof = found
        } catch let error as OAuth2.DPoP.Error {
            throw challenge(.invalidDPoPProof, error.reason)
        }
        let nonce = configuration.dpopNonce ? await store.dpop.nonce(for: .resourceServer) : nil
        do {
            _ = try await store.dpop.verify(
                proof,
                method: request.method,
                url: configuration.requestURL(request, issuer: ""),
                now: configuration.now(),
                accessToken: Secret(token),
                boundTo: jkt,
                nonce: nonce
            )
        } catch let error as OAuth2.DPoP.Error where error.asksForNonce {
            var problem = challenge(.useDPoPNonce, "the resource server requires a DPoP nonce")
            problem.headers[.dpopNonce] = nonce
            throw problem
        } catch let error as OAuth2.DPoP.Error where error.code == .keyMismatch {
            throw challenge(.invalidToken, "the token is bound to another key")
        } catch let error as OAuth2.DPoP.Error {
            throw challenge(.invalidDPoPProof, error.reason)
        }
        return record
    }

    /// The refusal with a `DPoP` challenge ([RFC 9449 §7.1](https://www.rfc-editor.org/rfc/rfc9449#section-7.1)):
    /// `DPoP algs="…", error="…"`, and `resource_metadata` on a protected resource.
    func challenge(
        _ code: OAuth2.ErrorCode,
        _ description: String,
        status: HTTPResponse.Status = .unauthorized
    ) -> OAuth2Problem {
        var problem = OAuth2Problem(code, description, status: status)
        let challenges = ResourceChallenges(
            realm: configuration.realm,
            algorithms: store.dpop.verifier.allowedAlgorithms.map(\.rawValue).sorted(),
            metadataURL: metadataURL
        )
        problem.headers[.wwwAuthenticate] = challenges.dpop(error: code)
        return problem
    }

}

extension BearerAuthenticator {
    var dpopCheck: DPoPResourceCheck {
        DPoPResourceCheck(
            store: store,
            configuration: configuration,
            metadataURL: resource.metadataURL(base: issuer.url)
        )
    }

    /// The token of `DPoP TOKEN` (scheme without case), or `nil` for another scheme.
    static func dpopToken(_ value: String) -> String? {
        let scheme = value.prefix { $0 != " " }
        guard scheme.lowercased() == "dpop" else { return nil }
        return String(value.dropFirst(scheme.count).drop { $0 == " " })
    }
}
