import Foundation

extension SandboxConfiguration {
    /// The contents of a `--config` file.
    public struct File: Codable, Sendable {
        /// More OAuth 1.0a consumers.
        public var consumers: [Consumer]?
        /// More users.
        public var users: [User]?
        /// OAuth 1.0a access tokens that exist from the start.
        public var tokens: [SeededToken]?
        /// More OAuth 2 clients.
        public var oauth2Clients: [OAuth2Client]?
        /// More HTTP Message Signatures keys.
        public var httpSignatureKeys: [HTTPSignatureKey]?
    }
}
