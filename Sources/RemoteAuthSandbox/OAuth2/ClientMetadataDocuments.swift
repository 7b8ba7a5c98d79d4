import HTTPTypes
import NIOCore
import RemoteAuth
import RemoteAuthNIO

/// The clients the sandbox knows by their client ID metadata document: it fetches the
/// document at the `client_id` URL when an endpoint first names it, checks it
/// (``ClientMetadataDocument``), and keeps the client for ``cacheSeconds``
/// ([draft §5.2](https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document#section-5.2)
/// lets the server choose its bounds; no cache header is read). A failed fetch or a refused
/// document is never kept (§5.2), so the next request fetches again.
///
/// The fetch is bounded, since anyone who can open a link to the sandbox chooses the URL: one
/// `GET` on a connection of its own, no redirect followed (§5), at most ``maximumBytes`` of
/// body and ``timeoutSeconds`` in all; at most ``capacity`` clients are kept, the oldest going
/// first.
final class ClientMetadataDocuments: Sendable {
    /// Sends the document's `GET`; ``NIOHTTP1Transport`` unless a test gives another.
    typealias Fetch =
        @Sendable (HTTPRequest, _ maximumBytes: Int, _ timeoutSeconds: Int64) async throws -> (
            HTTPResponse, [UInt8]
        )

    struct Entry: Sendable {
        var resolved: ClientMetadataDocument.Resolved
        var fetchedAt: Int64
    }

    let allowLoopbackHTTP: Bool
    let maximumBytes = 16 * 1024
    let timeoutSeconds: Int64
    let cacheSeconds: Int64 = 300
    let capacity = 1000
    private let now: @Sendable () -> Int64
    private let fetch: Fetch
    private let cache: Locked<BoundedTable<Entry>>

    init(allowLoopbackHTTP: Bool, timeoutSeconds: Int64 = 5, now: @escaping @Sendable () -> Int64, fetch: Fetch? = nil) {
        self.allowLoopbackHTTP = allowLoopbackHTTP
        self.timeoutSeconds = timeoutSeconds
        self.now = now
        self.fetch = fetch ?? Self.fetchOverNIO
        cache = Locked(BoundedTable(capacity: capacity))
    }

    /// The client of `url` if it was fetched less than ``cacheSeconds`` ago.
    func cached(_ url: String) -> ClientMetadataDocument.Resolved? {
        let entry = cache.withLock { $0[url] }
        guard let entry, now() - entry.fetchedAt < cacheSeconds else { return nil }
        return entry.resolved
    }

    /// The client of `url`: from the cache, or fetched and checked now.
    func resolve(_ url: String) async throws(ClientMetadataDocument.Failure) -> ClientMetadataDocument.Resolved {
        if let cached = cached(url) { return cached }
        let request = try ClientMetadataDocument.request(for: url, allowLoopbackHTTP: allowLoopbackHTTP)
        let response: HTTPResponse
        let body: [UInt8]
        do {
            (response, body) = try await fetch(request, maximumBytes, timeoutSeconds)
        } catch let error as TransportError where error.code == .responseTooLarge {
            throw ClientMetadataDocument.Failure(
                .invalidClient,
                "the client metadata document at '\(url)' is larger than \(maximumBytes) bytes"
            )
        } catch let error as TransportError where error.code == .timedOut {
            throw ClientMetadataDocument.Failure(
                .invalidClient,
                "the client metadata document at '\(url)' did not arrive within \(timeoutSeconds) seconds"
            )
        } catch {
            throw ClientMetadataDocument.Failure(
                .invalidClient,
                "the client metadata document at '\(url)' could not be fetched (\(ClientMetadataDocument.draft) §5.1)"
            )
        }
        guard body.count <= maximumBytes else {
            throw ClientMetadataDocument.Failure(
                .invalidClient,
                "the client metadata document at '\(url)' is larger than \(maximumBytes) bytes"
            )
        }
        let resolved = try ClientMetadataDocument.client(from: response, body: body, url: url)
        let fetchedAt = now()
        cache.withLock { $0[url] = Entry(resolved: resolved, fetchedAt: fetchedAt) }
        return resolved
    }

    /// One `GET` on a transport of its own (no pooled connection outlives it), trusting the
    /// system's roots for `https`.
    static let fetchOverNIO: Fetch = { request, maximumBytes, timeoutSeconds in
        let configuration = NIOHTTP1Transport.Configuration(
            connectTimeout: .seconds(timeoutSeconds),
            timeout: .seconds(timeoutSeconds),
            maximumResponseBytes: maximumBytes,
            idleTimeout: .zero,
            maximumConnectionsPerOrigin: 1
        )
        return try await NIOHTTP1Transport.withTransport(configuration: configuration) { transport in
            try await transport.send(request, body: nil)
        }
    }
}
