import Crypto
import RemoteAuth

/// The OAuth 2 clients the authorization server knows: the configured ones
/// (``SandboxConfiguration/oauth2Clients``) and those registered through
/// [RFC 7591](https://www.rfc-editor.org/rfc/rfc7591) (``RegistrationRoutes``), looked up by
/// every endpoint that names a client. Registered clients are written to the `--state` file
/// (``StateFile``, its `registeredClients` member) before the registration is answered, so
/// they survive restarts; at most ``SandboxConfiguration/registeredClientLimit`` are kept.
/// With ``documents``, a `client_id` that is a URL names its client ID metadata document
/// (``ClientMetadataDocuments``): ``resolve(_:)`` fetches it, ``client(_:)`` sees it while
/// it is cached.
final class OAuth2ClientRegistry: Sendable {
    /// A dynamically registered client: the client the endpoints use, the metadata it
    /// registered as the response echoes it ([RFC 7591 §3.2.1](https://www.rfc-editor.org/rfc/rfc7591#section-3.2.1)),
    /// and the SHA-256 of its registration access token ([RFC 7592 §3](https://www.rfc-editor.org/rfc/rfc7592#section-3)),
    /// so that the state file does not hold the token itself.
    struct Registration: Codable, Sendable, Equatable {
        var client: SandboxConfiguration.OAuth2Client
        var metadata: ClientMetadata
        var issuedAt: Int64
        var registrationTokenSHA256: String
    }

    private let configured: [SandboxConfiguration.OAuth2Client]
    private let registered: Locked<[String: Registration]>
    private let stateFile: StateFile?
    /// The clients known by their metadata document; `nil` when the sandbox fetches none.
    let documents: ClientMetadataDocuments?

    init(
        configured: [SandboxConfiguration.OAuth2Client],
        stateFile: StateFile?,
        documents: ClientMetadataDocuments? = nil
    ) {
        self.configured = configured
        self.stateFile = stateFile
        self.documents = documents
        registered = Locked(stateFile?.current.registeredClients ?? [:])
    }

    /// The client named `id`: a configured one first, so a registration can never shadow it,
    /// then a registered one, then a metadata document's while it is cached.
    func client(_ id: String) -> SandboxConfiguration.OAuth2Client? {
        configured.first { $0.id == id } ?? registered.withLock { $0[id]?.client }
            ?? documents?.cached(id)?.client
    }

    /// ``client(_:)``, fetching the metadata document when `id` is a URL
    /// ([draft §5](https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document#section-5)):
    /// every endpoint that takes a `client_id` from the request asks here. `nil` for an unknown
    /// client; throws when `id` is a URL whose document is refused.
    func resolve(_ id: String) async throws(ClientMetadataDocument.Failure) -> SandboxConfiguration.OAuth2Client? {
        if let known = configured.first(where: { $0.id == id }) ?? registered.withLock({ $0[id]?.client }) {
            return known
        }
        guard let documents, ClientMetadataDocument.names(id) else { return nil }
        return try await documents.resolve(id).client
    }

    var registeredCount: Int { registered.withLock { $0.count } }

    /// The `grant_types` a registered client, or a metadata document, restricted the client
    /// to ([RFC 7591 §2](https://www.rfc-editor.org/rfc/rfc7591#section-2)); `nil` for a
    /// configured client, which may use any grant its kind allows.
    func grantTypes(of id: String) -> [String]? {
        guard !isConfigured(id) else { return nil }
        if let registration = registered.withLock({ $0[id] }) { return registration.metadata.grantTypes }
        return documents?.cached(id)?.grantTypes
    }

    /// Whether `id` is a configured client (never managed through RFC 7592).
    func isConfigured(_ id: String) -> Bool { configured.contains { $0.id == id } }

    /// The registration of `id` when `token` is its registration access token, compared in
    /// constant time ([RFC 7592 §3](https://www.rfc-editor.org/rfc/rfc7592#section-3)); `nil`
    /// otherwise, whether the client is unknown or the token wrong (one answer for both).
    func registration(_ id: String, token: String) -> Registration? {
        guard let found = registered.withLock({ $0[id] }) else { return nil }
        return constantTimeEquals(Self.hash(token), found.registrationTokenSHA256) ? found : nil
    }

    /// Adds or replaces a registration and writes the state file; refuses a new one beyond `limit`.
    func save(_ registration: Registration, limit: Int) throws(SandboxError) -> Bool {
        let id = registration.client.id
        let saved: [String: Registration]? = registered.withLock { table in
            guard table[id] != nil || table.count < limit else { return nil }
            table[id] = registration
            return table
        }
        guard let saved else { return false }
        try persist(saved)
        return true
    }

    /// Removes a registration ([RFC 7592 §2.3](https://www.rfc-editor.org/rfc/rfc7592#section-2.3)).
    func remove(_ id: String) throws(SandboxError) {
        let saved = registered.withLock { table in
            table[id] = nil
            return table
        }
        try persist(saved)
    }

    private func persist(_ table: [String: Registration]) throws(SandboxError) {
        try stateFile?.update { $0.registeredClients = table }
    }

    /// Lowercase hex SHA-256 of a registration access token.
    static func hash(_ token: String) -> String {
        Hex.encode(Array(SHA256.hash(data: Array(token.utf8))))
    }
}
