public import HTTPTypes

/// Entry points for the coverage-guided fuzz targets in `Fuzz/` (libFuzzer), for readers of
/// untrusted bytes that are not public API: the RFC 3986 reference resolver and the reading of
/// an OAuth 1.0a provider's answer. Spelled `@_spi(Fuzzing)`, so they are not part of the
/// library's API and may change with any release; each calls the same code the library runs.
@_spi(Fuzzing)
public enum FuzzingEntryPoints {
    /// `reference` split by [RFC 3986 Appendix B](https://www.rfc-editor.org/rfc/rfc3986#appendix-B)
    /// and recomposed ([§5.3](https://www.rfc-editor.org/rfc/rfc3986#section-5.3)).
    public static func recomposedURIReference(_ reference: String) -> String {
        URIReference(parsing: reference).description
    }

    /// `reference` resolved against `base` ([RFC 3986 §5.2](https://www.rfc-editor.org/rfc/rfc3986#section-5.2)),
    /// recomposed, as the redirect policy resolves a `Location`.
    public static func resolvedURIReference(_ reference: String, against base: String) -> String {
        URIReference(parsing: reference).resolved(against: URIReference(parsing: base)).description
    }

    /// [RFC 3986 §5.2.4](https://www.rfc-editor.org/rfc/rfc3986#section-5.2.4)
    public static func removingDotSegments(_ path: String) -> String {
        URIReference.removeDotSegments(path)
    }

    /// What ``OAuth1/Flow`` makes of a provider's answer to the temporary credentials request
    /// ([RFC 5849 §2.1](https://www.rfc-editor.org/rfc/rfc5849#section-2.1)) or to the token
    /// request ([§2.3](https://www.rfc-editor.org/rfc/rfc5849#section-2.3)): the refusal of a
    /// status other than 200 (with `oauth_problem` from the body or a `WWW-Authenticate: OAuth`
    /// field), else the form-encoded body's token credentials and other fields.
    ///
    /// - Throws: ``OAuth1/FlowError``, as the flow's steps do.
    public static func oauth1ProviderAnswer(
        _ response: HTTPResponse,
        body: [UInt8],
        temporaryCredentials: Bool
    ) throws -> OAuth1.AccessToken {
        guard response.status == .ok else { throw OAuth1.Flow.refusal(response, body) }
        let fields: [OAuth1.Parameter]
        do {
            fields = try FormURLEncoding.decode(bytes: body).map { OAuth1.Parameter($0.name, $0.value) }
        } catch {
            throw OAuth1.FlowError(.malformedResponse, "the provider's answer is not form-encoded")
        }
        let credentials = try OAuth1.Flow.credentials(
            in: fields,
            step: temporaryCredentials ? "request token" : "access token"
        )
        if temporaryCredentials, fields.first(where: { $0.name == "oauth_callback_confirmed" })?.value != "true" {
            throw OAuth1.FlowError(.callbackNotConfirmed, "the provider did not answer oauth_callback_confirmed=true")
        }
        return OAuth1.AccessToken(
            credentials: credentials,
            fields: fields.filter { $0.name != "oauth_token" && $0.name != "oauth_token_secret" }
        )
    }

    /// ``OpenIDConnect/IDTokenValidator/validate(_:expecting:now:)`` without suspending, for a
    /// validator with fixed keys (``OpenIDConnect/IDTokenValidator/Keys/keys(_:)``) or HS256:
    /// the same steps (rule 1's parse, rules 6–8's signature, the claims, rules 2–5 and 9–13).
    ///
    /// - Throws: ``OpenIDConnect/Error``, as `validate` does.
    public static func validatedIDToken(
        _ token: Secret,
        by validator: OpenIDConnect.IDTokenValidator,
        expecting expectation: OpenIDConnect.IDTokenValidator.Expectation,
        now: Int64
    ) throws -> OpenIDConnect.IDToken {
        let jws = try OpenIDConnect.IDTokenValidator.parse(token)
        try validator.verifySignatureWithoutFetch(jws)
        let idToken = try OpenIDConnect.IDToken(claims: OpenIDConnect.IDTokenValidator.claims(of: jws), token: token)
        try validator.checkClaims(idToken, algorithm: jws.algorithm, expecting: expectation, now: now)
        return idToken
    }
}
