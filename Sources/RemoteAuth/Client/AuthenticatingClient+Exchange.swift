import HTTPTypes
import Logging

/// One request's round trips: the authenticator chain (the credential store's challenge answers
/// for the origin and the proxy, then the caller's authenticators) and the logged sends.
extension AuthenticatingClient {
    /// One hop of a request with its authentication round trips.
    func exchange(
        _ request: HTTPRequest,
        body: [UInt8]?,
        credentialsAllowed: Bool,
        preemptive: Bool?
    ) async throws -> (HTTPResponse, [UInt8]) {
        var builtIn: [any RequestAuthenticator] = []
        if credentialsAllowed, request.headerFields[.authorization] == nil { builtIn.append(originAnswers) }
        if let proxyAnswers, request.headerFields[.proxyAuthorization] == nil { builtIn.append(proxyAnswers) }
        return try await authenticatedRoundTrip(
            request,
            body: body,
            builtIn: builtIn,
            chain: try authenticators(for: request, credentialsAllowed: credentialsAllowed),
            preemptive: preemptive
        )
    }

    func roundTrip(
        _ request: HTTPRequest,
        body: [UInt8]?,
        sensitive: [HTTPField.Name] = []
    ) async throws -> (HTTPResponse, [UInt8]) {
        await state.countRoundTrip()
        let logger = configuration.logger
        logger.debug(
            "request",
            metadata: ["method": "\(request.method)", "url": "\(Redaction.redactedURL(request.absoluteURL))"]
        )
        logger.trace(
            "request fields",
            metadata: ["fields": .array(Redaction.redacted(request.headerFields, also: sensitive).map { "\($0)" })]
        )
        let (response, responseBody) = try await transport.send(request, body: body)
        logger.debug("response", metadata: ["status": "\(response.status)", "bytes": "\(responseBody.count)"])
        logger.trace(
            "response fields",
            metadata: ["fields": .array(Redaction.redacted(response.headerFields).map { "\($0)" })]
        )
        return (response, responseBody)
    }
}
