import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// One case of `Tests/Vectors/dpop.json` (sources: `Tests/Vectors/SOURCES.md`).
struct DPoPVector: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let source: String
    let kind: String
    let jwt: String?
    let verificationTime: Int64?
    let requestMethod: String?
    let requestURI: String?
    let accessToken: String?
    let serverNonce: String?
    let expectedValid: Bool?
    let expectedRejection: String?
    let expectedHeader: JSONValue?
    let expectedClaims: JSONValue?
    let jwk: JOSE.JWK?
    let expectedThumbprintInput: String?
    let expectedJKT: String?
    let expectedATH: String?
    let htu: String?
    let expectedHTUMatch: Bool?
    let requirement: String?

    enum CodingKeys: String, CodingKey {
        case name, source, kind, jwt, jwk, htu, requirement
        case verificationTime = "verification_time"
        case requestMethod = "request_method"
        case requestURI = "request_uri"
        case accessToken = "access_token"
        case serverNonce = "server_nonce"
        case expectedValid = "expected_valid"
        case expectedRejection = "expected_rejection"
        case expectedHeader = "expected_header"
        case expectedClaims = "expected_claims"
        case expectedThumbprintInput = "expected_thumbprint_input"
        case expectedJKT = "expected_jkt"
        case expectedATH = "expected_ath"
        case expectedHTUMatch = "expected_htu_match"
    }

    var testDescription: String { name }

    /// The library's error code for the vector file's rejection names.
    var expectedCode: OAuth2.DPoP.Error.Code? {
        switch expectedRejection {
        case "typ": .invalidType
        case "alg_none", "alg_not_asymmetric": .algorithmNotAllowed
        case "jwk_private": .privateKey
        case "signature_invalid": .invalidSignature
        case "htm_mismatch": .methodMismatch
        case "htu_mismatch": .urlMismatch
        case "nonce_mismatch": .nonceMismatch
        case "ath_mismatch": .accessTokenHashMismatch
        default: nil
        }
    }
}

@Suite struct DPoPVectorTests {
    static let all = (try? Vectors.load("dpop", as: DPoPVector.self)) ?? []

    /// Every case of the file is used by exactly one test below.
    @Test func vectorsLoad() throws {
        let vectors = try Vectors.load("dpop", as: DPoPVector.self)
        #expect(vectors.count == 31)
        let kinds = Dictionary(grouping: vectors, by: \.kind).mapValues(\.count)
        #expect(kinds == ["proof": 14, "jwk_thumbprint": 1, "ath": 1, "access_token_claims": 1, "htu_match": 14])
    }

    /// RFC 9449 §4.3, run at the proof's own `iat`: valid ones verify and give the header key's
    /// thumbprint, invalid ones fail with the named step.
    @Test(arguments: all.filter { $0.kind == "proof" })
    func proof(_ v: DPoPVector) throws {
        let verifier = OAuth2.DPoP.ProofVerifier()
        var cache = OAuth2.DPoP.ReplayCache()
        let run = {
            try verifier.verify(
                v.jwt!,
                method: HTTPRequest.Method(v.requestMethod!)!,
                url: v.requestURI!,
                at: v.verificationTime!,
                accessToken: v.accessToken.map { Secret($0) },
                nonce: v.serverNonce,
                replayCache: &cache
            )
        }
        if v.expectedValid == true {
            let verified = try run()
            #expect(verified.thumbprint == v.expectedJKT)
            #expect(verified.jwk.isPrivate == false)
            if case .object(let claims)? = v.expectedClaims {
                #expect(verified.jti == claims["jti"]?.stringValue)
                #expect(verified.issuedAt == claims["iat"]?.integerValue)
                #expect(verified.nonce == claims["nonce"]?.stringValue)
            }
            // The same proof again is a replay (§11.1).
            #expect(throws: OAuth2.DPoP.Error(.replayed, "")) { try run() }
        } else {
            let code = try #require(v.expectedCode, "unmapped rejection \(v.expectedRejection ?? "nil")")
            #expect(throws: OAuth2.DPoP.Error(code, "")) { try run() }
        }
        // The header decodes to the figure's.
        let jws = try JOSE.CompactJWS(v.jwt!)
        #expect(JSONValue.object(jws.header) == v.expectedHeader)
        #expect(try JSONValue.object(jws.claims()) == v.expectedClaims)
    }

    @Test(arguments: all.filter { $0.kind == "jwk_thumbprint" })
    func thumbprint(_ v: DPoPVector) throws {
        let jwk = try #require(v.jwk)
        #expect(String(decoding: try jwk.thumbprintInput(), as: UTF8.self) == v.expectedThumbprintInput)
        #expect(try jwk.thumbprint() == v.expectedJKT)
        #expect(v.expectedJKT == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
    }

    /// RFC 9449 §10: `dpop_jkt` is the thumbprint of the DPoP key, here the RFC's example key
    /// (Figure 2's), placed after the PKCE parameters (and pushed with them under PAR).
    @Test(arguments: all.filter { $0.kind == "jwk_thumbprint" })
    func authorizationRequestCarriesDPoPJKT(_ v: DPoPVector) throws {
        let jkt = try #require(v.jwk).thumbprint()
        let request = try OAuth2.AuthorizationRequest(
            authorizationEndpoint: "https://server.example.com/authorize",
            clientID: "s6BhdRkqt3",
            redirectURI: "https://client.example.com/cb",
            dpopJKT: jkt,
            random: .repeating([0x01])
        )
        #expect(
            request.url
                == "https://server.example.com/authorize?response_type=code&client_id=s6BhdRkqt3"
                + "&redirect_uri=https%3A%2F%2Fclient.example.com%2Fcb"
                + "&state=AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE"
                + "&code_challenge=VtX6czP210fbQsI5QH5dpMMvTHnzXQkrE0_TWkAtnFw&code_challenge_method=S256"
                + "&dpop_jkt=0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
        )
        #expect(request.parameters.last?.name == "dpop_jkt")
        #expect(request.parameters.last?.value == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
        // Not a SHA-256 thumbprint, or written by hand as an additional parameter: refused.
        for bad in ["", "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4", "0ZcOCORZNYy+DWpqq30jZyJGHTN0d2HglBV3uiguA4I"] {
            #expect(throws: OAuth2.Error(.invalidConfiguration, "")) {
                try OAuth2.AuthorizationRequest(
                    authorizationEndpoint: "https://server.example.com/authorize",
                    clientID: "s6BhdRkqt3",
                    redirectURI: "https://client.example.com/cb",
                    dpopJKT: bad,
                    random: .repeating([0x01])
                )
            }
        }
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) {
            try OAuth2.AuthorizationRequest(
                authorizationEndpoint: "https://server.example.com/authorize",
                clientID: "s6BhdRkqt3",
                redirectURI: "https://client.example.com/cb",
                additionalParameters: [("dpop_jkt", jkt)],
                random: .repeating([0x01])
            )
        }
    }

    /// A flow whose transport proves a key sends that key's thumbprint as `dpop_jkt`; a plain
    /// flow sends none, and `dpopJKT = nil` turns it off.
    @Test func flowSendsTheProversThumbprint() throws {
        struct Unused: HTTPTransport {
            func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
                throw TransportError(.connectFailed, "not used")
            }
        }
        let prover = try OAuth2.DPoP.Prover(key: .generateP256(), now: { 0 })
        let server = OAuth2.AuthorizationServer(
            authorizationEndpoint: "https://as.example/authorize",
            tokenEndpoint: "https://as.example/token"
        )
        var flow = OAuth2.Flow(server: server, client: .public(id: "c"), transport: Unused(), now: { 0 })
            .binding(to: prover)
        #expect(flow.dpopJKT == prover.thumbprint)
        let request = try flow.authorizationRequest(redirectURI: "http://127.0.0.1/cb", random: .system)
        #expect(request.dpopJKT == prover.thumbprint)
        #expect(request.url.hasSuffix("&dpop_jkt=" + prover.thumbprint))
        flow.dpopJKT = nil
        let unbound = try flow.authorizationRequest(redirectURI: "http://127.0.0.1/cb", random: .system)
        #expect(!unbound.url.contains("dpop_jkt"))
        let plain = OAuth2.Flow(server: server, client: .public(id: "c"), transport: Unused(), now: { 0 })
        #expect(plain.dpopJKT == nil)
    }

    @Test(arguments: all.filter { $0.kind == "ath" })
    func accessTokenHash(_ v: DPoPVector) throws {
        #expect(OAuth2.DPoP.accessTokenHash(Secret(v.accessToken!)) == v.expectedATH)
        #expect(v.expectedATH == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
    }

    /// Figure 8's access token: decoded only (the AS key is not given); its `cnf.jkt` is the
    /// thumbprint of the proofs' key.
    @Test(arguments: all.filter { $0.kind == "access_token_claims" })
    func accessTokenClaims(_ v: DPoPVector) throws {
        let jws = try JOSE.CompactJWS(v.jwt!)
        #expect(JSONValue.object(jws.header) == v.expectedHeader)
        let claims = try jws.claims()
        #expect(JSONValue.object(claims) == v.expectedClaims)
        #expect(claims["cnf"]?.objectValue?["jkt"]?.stringValue == v.expectedJKT)
    }

    @Test(arguments: all.filter { $0.kind == "htu_match" })
    func htuMatch(_ v: DPoPVector) throws {
        #expect(OAuth2.DPoP.ProofVerifier.htuMatches(v.htu!, v.requestURI!) == v.expectedHTUMatch)
        #expect(OAuth2.DPoP.ProofVerifier.htuMatches(v.requestURI!, v.htu!) == v.expectedHTUMatch)
    }
}
