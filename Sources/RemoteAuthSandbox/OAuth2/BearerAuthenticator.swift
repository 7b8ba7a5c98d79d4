import HTTPTypes
import Hummingbird
import NIOCore
import RemoteAuth

/// The authenticator in front of the status API: a request with `Authorization: Bearer` is
/// checked against the OAuth 2 access tokens
/// ([RFC 6750 §2.1](https://www.rfc-editor.org/rfc/rfc6750#section-2.1)) and the scope its
/// method needs (`statuses:read` to read, `statuses:write` to post); every other request goes
/// to ``OAuth1Authenticator`` unchanged, or, in front of a resource without OAuth 1.0a
/// (`/files`), is refused with the resource's challenges.
///
/// A request with no credentials at all is answered with every scheme the resource accepts,
/// one `WWW-Authenticate` field line each ([RFC 9110 §11.6.1](https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1)):
/// `OAuth realm="…"` (where OAuth 1.0a is taken), `Bearer realm="…", resource_metadata="…"`
/// ([RFC 6750 §3](https://www.rfc-editor.org/rfc/rfc6750#section-3)) and
/// `DPoP algs="…", resource_metadata="…"` ([RFC 9449 §7.1](https://www.rfc-editor.org/rfc/rfc9449#section-7.1)),
/// `resource_metadata` naming the resource's document
/// ([RFC 9728 §5.1](https://www.rfc-editor.org/rfc/rfc9728#section-5.1)). AWS SigV4 and
/// HTTP Message Signatures define no `WWW-Authenticate` challenge, so they have none.
struct BearerAuthenticator: RouterMiddleware {
    typealias Context = SandboxRequestContext
    /// `nil` where OAuth 1.0a is not taken (`/files`).
    let oauth1: OAuth1Authenticator?
    let store: OAuth2Store
    let configuration: SandboxConfiguration
    let resource: ProtectedResource
    let issuer: OAuth2Issuer

    func handle(
        _ request: Request,
        context: SandboxRequestContext,
        next: (Request, SandboxRequestContext) async throws -> Response
    ) async throws -> Response {
        let authorizations = request.headers[values: .authorization]
        if authorizations.count == 1, authorizations[0].hasPrefix("AWS4-HMAC-SHA256 ") {
            // Collected once, so that the signature check and the route both read it.
            var request = request
            _ = try await request.collectBody(upTo: 1 << 20)
            var context = context
            let verified = try await verifySigV4(request)
            context.sigV4User = verified.user
            // An aws-chunked upload: the route reads the payload, every chunk's signature checked.
            if let decoded = verified.decodedBody { request.body = .init(buffer: ByteBuffer(bytes: decoded)) }
            return try await next(request, context)
        }
        if authorizations.isEmpty, !request.headers[values: HTTPMessageSignatures.signatureInputField].isEmpty,
            !configuration.httpSignatureKeys.isEmpty
        {
            // RFC 9421 in place of a token: collected once, for the digest check and the route.
            var request = request
            _ = try await request.collectBody(upTo: 1 << 20)
            var context = context
            context.messageSignatureUser = try await verifyMessageSignature(request)
            return try await next(request, context)
        }
        let record: OAuth2Store.AccessToken
        if authorizations.count == 1, let authorization = authorizations.first,
            let token = Self.dpopToken(authorization)
        {
            record = try await dpopCheck.record(request, token: token)
        } else {
            guard authorizations.count == 1, let authorization = authorizations.first,
                let token = Self.bearerToken(authorization)
            else {
                return try await withoutToken(request, context: context, next: next)
            }
            guard Self.isB64Token(token) else {
                throw challenge(.invalidRequest, "the Bearer credentials are not a b64token", status: .badRequest)
            }
            guard let found = await store.accessToken(token, now: configuration.now()) else {
                throw challenge(.invalidToken, "the access token is unknown, expired or revoked", status: .unauthorized)
            }
            // RFC 9449 §7.1: a DPoP-bound token presented as Bearer is refused.
            guard found.jkt == nil else {
                throw dpopCheck.challenge(.invalidToken, "this token is DPoP-bound: send it as DPoP with a proof")
            }
            // RFC 9449 §5.2 (dpop_bound_access_tokens_required): no Bearer token at all.
            guard !configuration.requireDPoP else {
                throw dpopCheck.challenge(
                    .invalidToken,
                    "this resource takes only DPoP-bound tokens (dpop_bound_access_tokens_required, RFC 9449)"
                )
            }
            record = found
        }
        // RFC 8705 §3: a certificate-bound token is taken only over a connection with that certificate.
        if let bound = record.x5t {
            guard OAuth2.CertificateBinding.isBound(bound, toPresented: await context.peerCertificate()?.der) else {
                throw challenge(
                    .invalidToken,
                    "this token is bound to a TLS client certificate this connection did not present (RFC 8705 §3)",
                    status: .unauthorized
                )
            }
        }
        // RFC 8707 §2: a token issued for a resource (its audience) is taken there only.
        let base = issuer.url
        guard resource.accepts(audience: record.audience, base: base) else {
            let audience = record.audience.map { $0.joined(separator: " ") } ?? "none (a token issued without resource)"
            throw challenge(
                .invalidToken,
                "the access token's audience is \(audience), not this resource (\(resource.identifier(base: base))) (RFC 8707)",
                status: .unauthorized
            )
        }
        let needed = request.method == .get || request.method == .head ? "statuses:read" : "statuses:write"
        guard record.scope.contains(needed) else {
            throw challenge(
                .insufficientScope,
                "this call needs the scope \(needed)",
                status: .forbidden,
                scope: needed
            )
        }
        if needed == "statuses:write", let policy = configuration.stepUp {
            try checkStepUp(record, policy: policy)
        }
        var context = context
        context.bearer = record
        return try await next(request, context)
    }

    /// A write under a step-up policy: the token's sign-in must be of the policy's class, and
    /// no older than its `max_age`; else `401` with `insufficient_user_authentication`, the
    /// class in `acr_values` and the age in `max_age` ([RFC 9470 §3](https://www.rfc-editor.org/rfc/rfc9470#section-3)).
    func checkStepUp(_ record: OAuth2Store.AccessToken, policy: StepUpPolicy) throws {
        let reason: String
        if let signedIn = record.authentication, signedIn.acr == policy.acr {
            guard let maxAge = policy.maxAge, configuration.now() - signedIn.authTime > maxAge else { return }
            reason = "the sign-in behind this token is more than \(maxAge) s old"
        } else {
            let acr = record.authentication?.acr ?? "none"
            reason = "this call needs a sign-in of class \(policy.acr); the token's is \(acr)"
        }
        var problem = OAuth2Problem(.insufficientUserAuthentication, reason + " (RFC 9470)", status: .unauthorized)
        problem.headers[.wwwAuthenticate] = challenges.bearer(
            error: .insufficientUserAuthentication,
            acrValues: policy.acr,
            maxAge: policy.maxAge
        )
        throw problem
    }

    /// The token of `Bearer TOKEN` (scheme without case), or `nil` for another scheme.
    static func bearerToken(_ value: String) -> String? {
        let scheme = value.prefix { $0 != " " }
        guard scheme.lowercased() == "bearer" else { return nil }
        return String(value.dropFirst(scheme.count).drop { $0 == " " })
    }

    /// `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`
    /// ([RFC 6750 §2.1](https://www.rfc-editor.org/rfc/rfc6750#section-2.1)).
    static func isB64Token(_ token: String) -> Bool {
        let body = token.utf8.reversed().drop { $0 == UInt8(ascii: "=") }
        return !body.isEmpty
            && body.allSatisfy {
                FormURLEncoding.isUnreserved($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/")
            }
    }

    /// The refusal with its challenge ([RFC 6750 §3](https://www.rfc-editor.org/rfc/rfc6750#section-3)):
    /// `Bearer realm="…", error="…"`, for `insufficient_scope` the `scope` needed, and the
    /// resource's `resource_metadata` ([RFC 9728 §5.1](https://www.rfc-editor.org/rfc/rfc9728#section-5.1)).
    func challenge(
        _ code: OAuth2.ErrorCode,
        _ description: String,
        status: HTTPResponse.Status,
        scope: String? = nil
    ) -> OAuth2Problem {
        var problem = OAuth2Problem(code, description, status: status)
        problem.headers[.wwwAuthenticate] = challenges.bearer(error: code, scope: scope)
        return problem
    }

    /// The challenges of this resource, `resource_metadata` naming its document.
    var challenges: ResourceChallenges {
        ResourceChallenges(
            realm: configuration.realm,
            algorithms: store.dpop.verifier.allowedAlgorithms.map(\.rawValue).sorted(),
            metadataURL: resource.metadataURL(base: issuer.url)
        )
    }

    /// A request without a Bearer or DPoP token: OAuth 1.0a where it is taken, its unsigned
    /// refusal (`parameter_absent`, a request with no credentials) completed with the Bearer
    /// and DPoP challenges; elsewhere the challenges alone.
    func withoutToken(
        _ request: Request,
        context: SandboxRequestContext,
        next: (Request, SandboxRequestContext) async throws -> Response
    ) async throws -> Response {
        let challenges = self.challenges
        guard let oauth1 else {
            throw ResourceChallengeRefusal(challenges: [challenges.bearer(), challenges.dpop()])
        }
        do {
            return try await oauth1.handle(request, context: context, next: next)
        } catch var problem as OAuthProblem
            where problem.problem == .parameterAbsent && problem.status == .unauthorized
            && request.headers[.authorization] == nil
        {
            problem.otherChallenges = [challenges.bearer(), challenges.dpop()]
            throw problem
        }
    }
}

extension OAuth2Store.AccessToken {
    /// The resources the token was issued for (`resource`, RFC 8707), or `nil` for none.
    var audience: [String]? { resources }

    /// The user the token acts for; a client credentials token acts as its client.
    var name: String { user ?? clientID }
}

extension BearerAuthenticator {
    /// An AWS Signature Version 4 request with one of the configured keys: its user, and the
    /// payload of an `aws-chunked` upload (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`).
    func verifySigV4(_ request: Request) async throws -> (user: String, decodedBody: [UInt8]?) {
        let keys = configuration.awsKeys
        let verifier = AWS.SigV4Verifier { id in keys.first { $0.accessKeyID == id }.map { Secret($0.secret) } }
        var head = request.head
        head.scheme = configuration.tls == nil ? "http" : "https"
        head.authority = head.authority ?? request.headers[HTTPField.Name("Host")!]
        do {
            let verified = try verifier.verify(head, body: await request.bodyBytes(), now: configuration.now())
            let user = keys.first { $0.accessKeyID == verified.accessKeyID }?.user ?? ""
            return (user, verified.decodedBody)
        } catch let error as AWS.SigV4Error {
            // AWS answers 403 with its code (SignatureDoesNotMatch, RequestTimeTooSkewed, …), a
            // chunk whose signature fails included; a broken aws-chunked framing is a 400.
            let status: HTTPResponse.Status = error.code == .invalidRequest ? .badRequest : .forbidden
            throw JSONError(status, "\(Self.awsCode(error.code)): \(error.reason)")
        }
    }

    /// The code S3 answers for a refused signature
    /// ([S3 error responses](https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html)).
    static func awsCode(_ code: AWS.SigV4Error.Code) -> String {
        switch code {
        case .signatureDoesNotMatch: "SignatureDoesNotMatch"
        case .requestTimeTooSkewed: "RequestTimeTooSkewed"
        case .unknownKey: "InvalidAccessKeyId"
        case .malformedAuthorization: "AuthorizationHeaderMalformed"
        default: "InvalidRequest"
        }
    }
}
