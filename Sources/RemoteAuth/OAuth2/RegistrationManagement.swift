import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OAuth2.DynamicRegistration {
    /// Reads the client's registration as the server holds it now
    /// ([RFC 7592 §2.1](https://www.rfc-editor.org/rfc/rfc7592#section-2.1)): `GET` at the
    /// `registration_client_uri` with the registration access token as a Bearer token. The
    /// answer's `client_id` must be the registration's (§2.1: the server answers for this client
    /// only).
    ///
    /// - Throws: ``OAuth2/Error/Code/invalidConfiguration`` for a registration without RFC 7592's
    ///   token and URI (registered by hand, or by a server without management);
    ///   ``OAuth2/Error/Code/serverRefused`` (the server's `invalid_token` for a revoked token, or
    ///   a `401`/`403`/`404` without a body, RFC 7592 §2.1); ``OAuth2/Error/Code/malformedResponse``.
    public static func read(
        _ registration: OAuth2.ClientRegistration,
        transport: any HTTPTransport
    ) async throws -> Registered {
        let (uri, token) = try managed(registration)
        let (response, body) = try await transport.send(request(.get, uri: uri, token: token), body: nil)
        return try answered(registration, "GET", uri, response, body, section: "§2.1")
    }

    /// Replaces the client's registered metadata with `metadata`
    /// ([RFC 7592 §2.2](https://www.rfc-editor.org/rfc/rfc7592#section-2.2)): `PUT` at the
    /// `registration_client_uri`, the registration access token as a Bearer token, a JSON body
    /// of every member the client wants kept (what is left out may be dropped or reset by the
    /// server), with the current `client_id` and, for a confidential client, its current
    /// `client_secret`, as §2.2 requires. The answer is the registration as it now is (§3); it
    /// may carry a new secret or a new registration access token: keep the session's
    /// registration as ``Registered/registration(replacing:)`` makes it.
    ///
    /// - Throws: as ``read(_:transport:)``; the server's `invalid_redirect_uri` or
    ///   `invalid_client_metadata` (§3.2); an answer for another `client_id` is
    ///   ``OAuth2/Error/Code/malformedResponse``.
    public static func update(
        _ registration: OAuth2.ClientRegistration,
        to metadata: Metadata,
        transport: any HTTPTransport
    ) async throws -> Registered {
        let (uri, token) = try managed(registration)
        var members = metadata.members
        members["client_id"] = .string(registration.clientID)
        if let secret = registration.clientSecret { members["client_secret"] = .string(secret.reveal()) }
        var request = try request(.put, uri: uri, token: token)
        request.headerFields[.contentType] = "application/json"
        let body = Array(try JSONEncoder().encode(JSONValue.object(members)))
        let (response, answer) = try await transport.send(request, body: body)
        return try answered(registration, "PUT", uri, response, answer, section: "§2.2")
    }

    /// Deletes the client's registration at the server
    /// ([RFC 7592 §2.3](https://www.rfc-editor.org/rfc/rfc7592#section-2.3)): `DELETE` at the
    /// `registration_client_uri`; `204 No Content` is success. The server then invalidates the
    /// client id, its secret and the registration access token, and the tokens issued to it may
    /// stop working.
    ///
    /// - Throws: as ``read(_:transport:)``; a success status other than 204 is
    ///   ``OAuth2/Error/Code/malformedResponse``.
    public static func delete(
        _ registration: OAuth2.ClientRegistration,
        transport: any HTTPTransport
    ) async throws {
        let (uri, token) = try managed(registration)
        let (response, body) = try await transport.send(request(.delete, uri: uri, token: token), body: nil)
        do {
            if response.status.code == 204 { return }
            try refuseWithoutBody(response, body: body)
            _ = try OAuth2.JSONObject.parse(status: response.status.code, body: body)
            throw OAuth2.Error(
                .malformedResponse,
                "HTTP \(response.status.code), where a deleted registration is 204 No Content (RFC 7592 §2.3)",
                status: response.status.code
            )
        } catch let error as OAuth2.Error {
            throw OAuth2.Error(
                error.code,
                "DELETE \(uri): \(error.reason)",
                serverError: error.serverError,
                status: error.status
            )
        }
    }

    /// The registration a read or an update answered (RFC 7592 §3): a bare refusal named, the
    /// answer read, its `client_id` that of `registration`; errors prefixed with the request.
    static func answered(
        _ registration: OAuth2.ClientRegistration,
        _ method: String,
        _ uri: String,
        _ response: HTTPResponse,
        _ body: [UInt8],
        section: String
    ) throws -> Registered {
        do {
            try refuseWithoutBody(response, body: body)
            let registered = try parse(status: response.status.code, body: body)
            guard registered.clientID == registration.clientID else {
                throw OAuth2.Error(
                    .malformedResponse,
                    "the registration is for client '\(PeerText.printable(registered.clientID, limit: 200))', not '\(registration.clientID)' (RFC 7592 \(section))",
                    status: response.status.code
                )
            }
            return registered
        } catch let error as OAuth2.Error {
            throw OAuth2.Error(
                error.code,
                "\(method) \(uri): \(error.reason)",
                serverError: error.serverError,
                status: error.status
            )
        }
    }

    /// The registration client URI and access token, checked.
    static func managed(_ registration: OAuth2.ClientRegistration) throws -> (String, Secret) {
        guard let uri = registration.registrationClientURI, let token = registration.registrationAccessToken else {
            throw OAuth2.Error(
                .invalidConfiguration,
                "client '\(registration.clientID)' has no registration_client_uri and registration_access_token: it was not registered dynamically with RFC 7592 management"
            )
        }
        try OAuth2.checkEndpoint(uri)
        return (uri, token)
    }

    static func request(_ method: HTTPRequest.Method, uri: String, token: Secret) throws -> HTTPRequest {
        var fields = HTTPFields()
        fields[.accept] = "application/json"
        fields[.authorization] = "Bearer " + token.reveal()
        return try HTTPRequest(method: method, absoluteURL: uri, headerFields: fields)
    }

    /// RFC 7592 §2.1: a refusal may be a bare `401`, `403` or `404`, with no JSON error.
    static func refuseWithoutBody(_ response: HTTPResponse, body: [UInt8]) throws {
        let status = response.status.code
        guard [401, 403, 404].contains(status), (try? JSONValue.parseObject(body)) == nil else { return }
        let meaning =
            status == 404
            ? "the server knows no such registration (deleted, or never made)"
            : "the registration access token is not accepted (revoked, or the client is gone)"
        throw OAuth2.Error(.serverRefused, "HTTP \(status): \(meaning) (RFC 7592 §2.1)", status: status)
    }
}
