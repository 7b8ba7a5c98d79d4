import HTTPTypes
import Logging

/// One request's round trips: the authenticator chain (the credential store's challenge answers
/// for the origin and the proxy, then the caller's authenticators) and the logged sends.
extension AuthenticatingClient {
    /// One hop of a request with its authentication round trips.
    func exchange<Body: Sendable>(
        _ request: HTTPRequest,
        body: RequestBody?,
        credentialsAllowed: Bool,
        preemptive: Bool?,
        send: (HTTPRequest, RequestBody?, [HTTPField.Name]) async throws -> (HTTPResponse, Body),
        inMemory: (Body) -> [UInt8]?
    ) async throws -> (HTTPResponse, Body) {
        var builtIn: [any RequestAuthenticator] = []
        if credentialsAllowed, request.headerFields[.authorization] == nil { builtIn.append(originAnswers) }
        if let proxyAnswers, request.headerFields[.proxyAuthorization] == nil { builtIn.append(proxyAnswers) }
        return try await authenticatedRoundTrip(
            request,
            body: body,
            builtIn: builtIn,
            chain: try authenticators(for: request, credentialsAllowed: credentialsAllowed),
            preemptive: preemptive,
            send: send,
            inMemory: inMemory
        )
    }

    func roundTrip(
        _ request: HTTPRequest,
        body: [UInt8]?,
        sensitive: [HTTPField.Name] = []
    ) async throws -> (HTTPResponse, [UInt8]) {
        await logRequest(request, sensitive: sensitive)
        let (response, responseBody) = try await transport.send(request, body: body)
        logResponse(response, bytes: "\(responseBody.count)")
        return (response, responseBody)
    }

    /// One streamed send; a challenge's body is read first (bounded), for the judges.
    func streamRoundTrip(
        _ request: HTTPRequest,
        body: RequestBody?,
        sensitive: [HTTPField.Name]
    ) async throws -> (HTTPResponse, ResponseBody) {
        await logRequest(request, sensitive: sensitive)
        var (response, responseBody) = try await transport.stream(request, body: body)
        if [400, 401, 407].contains(response.status.code), responseBody.bytes == nil {
            responseBody = ResponseBody(bytes: try await responseBody.collect(upTo: 64 << 10))
        }
        logResponse(response, bytes: responseBody.bytes.map { "\($0.count)" } ?? "streamed")
        return (response, responseBody)
    }

    private func logRequest(_ request: HTTPRequest, sensitive: [HTTPField.Name]) async {
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
    }

    private func logResponse(_ response: HTTPResponse, bytes: String) {
        configuration.logger.debug("response", metadata: ["status": "\(response.status)", "bytes": "\(bytes)"])
        configuration.logger.trace(
            "response fields",
            metadata: ["fields": .array(Redaction.redacted(response.headerFields).map { "\($0)" })]
        )
    }
}
