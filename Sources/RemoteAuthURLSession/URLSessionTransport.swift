public import Foundation
public import HTTPTypes
public import RemoteAuth

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An `HTTPTransport` over Foundation's `URLSession` (FoundationNetworking on Linux).
///
/// It puts one request on the wire and hands back what came back, leaving authentication and
/// redirects to `AuthenticatingClient`:
/// - redirects are not followed (the 3xx response is returned);
/// - authentication challenges are not answered (the session's credential storage, cookie
///   storage and cache are off), so a 401 or 407 comes back to the client.
///
/// FoundationNetworking on Linux (seen with Swift 6.3.1) handles a `401` with
/// `WWW-Authenticate: Basic` itself: without a delegate, or when the delegate asks for default
/// handling, the task never completes; when the delegate declines, the task fails as
/// cancelled. This transport's delegate therefore keeps the challenge's `failureResponse`,
/// declines, and hands that response back, status and header fields intact but with an empty
/// body. Digest and other schemes reach the client untouched.
///
/// **Server trust.** FoundationNetworking on Linux (libcurl underneath) never delivers a
/// server-trust challenge to the delegate (`NSURLAuthenticationMethodServerTrust` does not
/// occur; there is no `SecTrust`), has no per-session CA bundle and no access to the
/// certificate chain, and does not ask the delegate for a client certificate. It evaluates the
/// system's roots and the host name, nothing else. So this transport accepts only
/// `ServerTrust` with `DefaultTrustPolicy` on the system roots and no
/// `ClientIdentity`; anything else (a pin, a CA bundle, a pinned certificate,
/// accept-anything, mutual TLS) throws `TrustError.Code.unsupportedByTransport`
/// from the initializer rather than connect without it. Use `RemoteAuthNIO`'s
/// `NIOHTTP1Transport` for those. (On Apple platforms the delegate can evaluate `SecTrust`;
/// that adapter is not written yet.)
///
/// Limits of `URLRequest`/`HTTPURLResponse`: header fields with the same name are joined with
/// `,` (and the order of fields is not kept), and `URLSession` may add `Accept-Encoding` and
/// decode the body.
///
/// Failures below HTTP are `TransportError`s mapped from `URLError`'s code (kept as
/// the underlying error). The deadline covers the whole request: the transport cancels the task
/// when it passes, whatever phase it is in (`URLRequest.timeoutInterval` alone is an idle timeout).
///
/// **Challenges.** The delegate declines (cancels) the HTTP authentication challenges, Basic,
/// Digest, and also NTLM and Negotiate: `AuthenticatingClient` answers what it can with the
/// credential chosen for the origin, and the system must not answer NTLM or Negotiate (Kerberos)
/// with ambient credentials behind its back. The TLS challenges (server trust, client certificate)
/// get the system's default handling: on Apple platforms the server-trust challenge reaches the
/// same delegate method, and default handling evaluates the system's roots and the host name,
/// which is what the only `ServerTrust` this transport accepts asks for.
///
/// **Apple platforms.** Expected to build (the Darwin-specific part is none: the code paths are
/// the same Foundation API); tested on Linux only.
public struct URLSessionTransport: HTTPTransport {
    let session: URLSession
    /// The deadline for one request, from connecting to the last body byte, in seconds.
    let timeout: TimeInterval
    /// The largest response body read; a larger one (announced or received) fails the request
    /// with `TransportError.Code.responseTooLarge` as soon as it shows.
    public let maximumResponseBytes: Int

    /// A transport with its own ephemeral session.
    ///
    /// - Throws: `TrustError.Code.unsupportedByTransport` for a trust policy other
    ///   than the system's default, or a client identity (see the type's discussion).
    public init(
        timeout: TimeInterval = 30, maximumResponseBytes: Int = 16 << 20, trust: ServerTrust,
        clientIdentity: ClientIdentity? = nil
    ) throws {
        try Self.checkSupported(trust: trust, clientIdentity: clientIdentity)
        self.init(timeout: timeout, maximumResponseBytes: maximumResponseBytes)
    }

    /// Fails closed: a policy this transport cannot evaluate is an error, never skipped.
    static func checkSupported(trust: ServerTrust, clientIdentity: ClientIdentity?) throws {
        guard trust.isSystemDefault else {
            throw TrustError(
                .unsupportedByTransport,
                "URLSession on Linux (FoundationNetworking) cannot evaluate \(trust): it shows no certificate chain to the delegate; use NIOHTTP1Transport"
            )
        }
        guard clientIdentity == nil else {
            throw TrustError(
                .unsupportedByTransport,
                "URLSession on Linux (FoundationNetworking) cannot present a client certificate; use NIOHTTP1Transport"
            )
        }
    }

    /// A transport with its own ephemeral session, trusting the system's roots.
    public init(timeout: TimeInterval = 30, maximumResponseBytes: Int = 16 << 20) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieStorage = nil
        configuration.urlCredentialStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        session = URLSession(configuration: configuration, delegate: Delegate(), delegateQueue: nil)
        self.timeout = timeout
        self.maximumResponseBytes = maximumResponseBytes
    }

    /// Runs `body` with a transport and invalidates its session afterwards, whether `body`
    /// throws or not.
    public static func withTransport<Result>(
        timeout: TimeInterval = 30,
        maximumResponseBytes: Int = 16 << 20,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (URLSessionTransport) async throws -> Result
    ) async throws -> Result {
        let transport = URLSessionTransport(timeout: timeout, maximumResponseBytes: maximumResponseBytes)
        defer { transport.session.finishTasksAndInvalidate() }
        return try await body(transport)
    }

    /// Sends `request` through the URL session without following redirects and reads the whole
    /// response body, failing with a `TransportError` past the timeout or the size limit.
    public func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        let origin = try AuthScope(origin: request).description
        guard let url = URL(string: request.absoluteURL) else {
            throw TransportError(.invalidRequest, "'\(request.absoluteURL)' is not a URL Foundation accepts")
        }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.httpShouldHandleCookies = false
        for field in request.headerFields {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        if let body { urlRequest.httpBody = Data(body) }
        guard let delegate = session.delegate as? Delegate else {
            throw TransportError(.invalidRequest, "the session's delegate is not this transport's")
        }
        let task = TaskState()
        // The deadline of the whole request; FoundationNetworking's timeouts are idle timeouts.
        // A dispatch timer, not a sleeping Task: a cancelled Task.sleep keeps its allocations
        // until its deadline has passed (swiftlang/swift#60441), one per request; a cancelled
        // dispatch source is released at once.
        let timeout = self.timeout
        let deadline = DispatchSource.makeTimerSource(queue: .global())
        deadline.schedule(deadline: .now() + timeout)
        deadline.setEventHandler {
            task.timedOut.withLock { $0 = true }
            // The answer goes back now, whatever URLSession is still busy with (parsing a
            // 100,000-line head takes FoundationNetworking seconds past a cancel).
            if let id = task.task.withLock({ $0?.taskIdentifier }) {
                delegate.finish(
                    id, throwing: TransportError(.timedOut, "no complete response from \(origin) within \(timeout) s"))
            }
            task.cancel()
        }
        deadline.resume()
        defer { deadline.cancel() }
        let limit = maximumResponseBytes
        let (data, response): (Data, URLResponse) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // No completion handler: the delegate sees each chunk, so a body over the limit
                // is cut as it arrives, not after it was all kept.
                let dataTask = session.dataTask(with: urlRequest)
                delegate.register(
                    dataTask.taskIdentifier,
                    Delegate.Pending(
                        continuation: continuation, state: task, origin: origin, timeout: timeout, limit: limit))
                task.task.withLock { $0 = dataTask }
                // A cancellation that came before the task was stored found nothing to cancel:
                // it is seen here instead (the handler sets the flag before it reads the task,
                // this sets the task before it reads the flag, so one of them sees the other).
                if task.cancelled.withLock({ $0 }) {
                    delegate.finish(dataTask.taskIdentifier, throwing: CancellationError())
                    dataTask.cancel()
                    return
                }
                dataTask.resume()
            }
        } onCancel: {
            task.cancelled.withLock { $0 = true }
            if let id = task.task.withLock({ $0?.taskIdentifier }) {
                delegate.finish(id, throwing: CancellationError())
            }
            task.cancel()
        }
        guard let http = response as? HTTPURLResponse else {
            throw TransportError(.malformedResponse, "the response from \(origin) is not HTTP")
        }
        var fields = HTTPFields()
        for (name, value) in http.allHeaderFields {
            guard let text = name as? String, let name = HTTPField.Name(text), let value = value as? String else {
                continue
            }
            fields.append(HTTPField(name: name, value: value))
        }
        return (HTTPResponse(status: .init(code: http.statusCode), headerFields: fields), Array(data))
    }

    /// `URLError` by its code.
    static func transportError(_ error: any Error, origin: String) -> any Error {
        guard let error = error as? URLError else {
            return TransportError(.connectFailed, "the exchange with \(origin) failed", underlying: error)
        }
        switch error.code {
        case .cannotFindHost, .dnsLookupFailed:
            let host = error.failingURL?.host ?? origin
            return TransportError(.hostNotFound, "the host name '\(host)' does not resolve", underlying: error)
        case .cannotConnectToHost:
            // Foundation does not tell a refusal from other connect failures in the code.
            return TransportError(.connectionRefused, "\(origin) refused the connection", underlying: error)
        case .timedOut:
            return TransportError(.timedOut, "no complete response from \(origin) in time", underlying: error)
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired:
            return TransportError(.tlsHandshakeFailed, "the TLS handshake with \(origin) failed", underlying: error)
        case .networkConnectionLost:
            return TransportError(.connectionClosed, "\(origin) closed the connection", underlying: error)
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            return TransportError(
                .malformedResponse,
                "\(origin) sent a response that does not parse",
                underlying: error
            )
        case .dataLengthExceedsMaximum:
            return TransportError(.responseTooLarge, "the response from \(origin) is too large", underlying: error)
        case .unknown
        where error.localizedDescription.hasPrefix("Too large response headers")
            || error.localizedDescription == "Out of memory":
            // libcurl's limits on a response head (300 KiB in all, 100 KiB for one field, which
            // it reports as CURLE_OUT_OF_MEMORY in curl 7.88), passed on by FoundationNetworking
            // as an unknown error with curl's text: the one code read from the text.
            return TransportError(
                .responseTooLarge, "the response head from \(origin) is larger than libcurl accepts", underlying: error)
        case .badURL, .unsupportedURL:
            return TransportError(.invalidRequest, "Foundation does not take the URL for \(origin)", underlying: error)
        case .cancelled:
            return CancellationError()
        default:
            return TransportError(.connectFailed, "the exchange with \(origin) failed", underlying: error)
        }
    }

    /// The task of one request, for the deadline and cancellation to cancel, and whether the
    /// deadline did.
    final class TaskState: Sendable {
        let task = Locked<URLSessionDataTask?>(nil)
        let timedOut = Locked(false)
        /// The calling task was cancelled (set before the handler looks for the data task).
        let cancelled = Locked(false)

        func cancel() { task.withLock { $0?.cancel() } }
    }

    /// Keeps redirects and challenges for `AuthenticatingClient`, and collects each task's
    /// response within its limit.
    final class Delegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        // @unchecked because NSObject is not Sendable; the stored values are behind locks.
        /// The 401/407 responses of challenges declined, by task, until the task completes.
        private let declined = Locked<[Int: HTTPURLResponse]>([:])
        /// The requests in flight, by task.
        private let pending = Locked<[Int: Pending]>([:])

        /// One request in flight: where its answer goes, and what arrived so far.
        struct Pending: Sendable {
            let continuation: CheckedContinuation<(Data, URLResponse), any Error>
            let state: TaskState
            let origin: String
            let timeout: TimeInterval
            let limit: Int
            var response: URLResponse? = nil
            var data = Data()
            var tooLarge = false
        }

        func register(_ id: Int, _ request: Pending) {
            pending.withLock { $0[id] = request }
        }

        /// Ends a request now with `error` (the deadline, a cancellation); the task's own
        /// completion, when it comes, finds nothing left to answer.
        func finish(_ id: Int, throwing error: any Error) {
            pending.withLock { $0.removeValue(forKey: id) }?.continuation.resume(throwing: error)
        }

        func urlSession(
            _ session: URLSession,
            dataTask: URLSessionDataTask,
            didReceive response: URLResponse,
            completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
        ) {
            let allowed = pending.withLock { table -> Bool in
                guard var request = table[dataTask.taskIdentifier] else { return false }
                request.response = response
                // A Content-Length over the limit fails before any of the body is read.
                if response.expectedContentLength > Int64(request.limit) { request.tooLarge = true }
                table[dataTask.taskIdentifier] = request
                return !request.tooLarge
            }
            completionHandler(allowed ? .allow : .cancel)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let over = pending.withLock { table -> Bool in
                guard var request = table[dataTask.taskIdentifier], !request.tooLarge else { return false }
                if request.data.count + data.count > request.limit {
                    request.tooLarge = true
                    request.data = Data()
                } else {
                    request.data.append(data)
                }
                table[dataTask.taskIdentifier] = request
                return request.tooLarge
            }
            if over { dataTask.cancel() }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let request = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
            let origin = request.origin
            if request.tooLarge {
                request.continuation.resume(
                    throwing: TransportError(
                        .responseTooLarge, "the response body from \(origin) is larger than \(request.limit) bytes"))
            } else if let error {
                if let declined = takeDeclinedResponse(taskIdentifier: task.taskIdentifier) {
                    request.continuation.resume(returning: (Data(), declined))
                } else if request.state.timedOut.withLock({ $0 }) {
                    request.continuation.resume(
                        throwing: TransportError(
                            .timedOut, "no complete response from \(origin) within \(request.timeout) s", underlying: error))
                } else {
                    request.continuation.resume(throwing: URLSessionTransport.transportError(error, origin: origin))
                }
            } else if let response = request.response ?? task.response {
                request.continuation.resume(returning: (request.data, response))
            } else {
                request.continuation.resume(throwing: TransportError(.malformedResponse, "\(origin) sent no response"))
            }
        }

        /// Whether a challenge is TLS's (server trust, client certificate), which only Apple
        /// platforms deliver to the delegate: FoundationNetworking has neither method.
        static func isTLSChallenge(_ method: String) -> Bool {
            #if canImport(Darwin)
            method == NSURLAuthenticationMethodServerTrust || method == NSURLAuthenticationMethodClientCertificate
            #else
            false
            #endif
        }

        func takeDeclinedResponse(taskIdentifier: Int) -> HTTPURLResponse? {
            declined.withLock { $0.removeValue(forKey: taskIdentifier) }
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            if Self.isTLSChallenge(challenge.protectionSpace.authenticationMethod) {
                // TLS, below HTTP: the system's roots and host name check, and no client
                // certificate.
                completionHandler(.performDefaultHandling, nil)
                return
            }
            // Basic, Digest, NTLM, Negotiate, HTML forms: the client's to answer.
            if let response = challenge.failureResponse as? HTTPURLResponse {
                declined.withLock { $0[task.taskIdentifier] = response }
            }
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }
}
