public import HTTPTypes

extension AuthenticatingClient {
    /// Sends `method` to an absolute `url` string, with `headerFields` and `body`.
    ///
    /// - Throws: ``ClientError/Code/invalidURL`` when `url` is not an absolute `http`/`https`
    ///   URL, and what ``send(_:body:preemptive:)`` throws.
    public func send(
        _ method: HTTPRequest.Method,
        to url: String,
        headerFields: HTTPFields = [:],
        body: [UInt8]? = nil,
        preemptive: Bool? = nil
    ) async throws -> (HTTPResponse, [UInt8]) {
        let request: HTTPRequest
        do {
            request = try HTTPRequest(method: method, absoluteURL: url, headerFields: headerFields)
        } catch let error as RequestURLError {
            throw ClientError(.invalidURL, error.reason)
        }
        return try await send(request, body: body, preemptive: preemptive)
    }

    /// `GET url`: `try await client.get("https://api.example.com/me")`.
    public func get(
        _ url: String,
        headerFields: HTTPFields = [:],
        preemptive: Bool? = nil
    ) async throws -> (HTTPResponse, [UInt8]) {
        try await send(.get, to: url, headerFields: headerFields, preemptive: preemptive)
    }

    /// `POST url` with `body`.
    public func post(
        _ url: String,
        body: [UInt8],
        headerFields: HTTPFields = [:],
        preemptive: Bool? = nil
    ) async throws -> (HTTPResponse, [UInt8]) {
        try await send(.post, to: url, headerFields: headerFields, body: body, preemptive: preemptive)
    }
}
