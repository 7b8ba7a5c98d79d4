import RemoteAuth

/// The text the sandbox prints at start and serves at `/`.
public enum SandboxBanner {
    public static func endpoints(base: String) -> String {
        """
        Endpoints:
          POST \(base)/oauth/request_token        OAuth 1.0a temporary credentials (x_auth_mode=reverse_auth for reverse auth)
          GET  \(base)/oauth/authorize            consent page
          POST \(base)/oauth/access_token         token credentials (x_reverse_auth_target for reverse auth)
          POST \(base)/1.1/statuses/update.json   status=TEXT (signed)
          GET  \(base)/1.1/statuses/home_timeline.json
          GET  \(base)/1.1/account/verify_credentials.json
          GET  \(base)/basic/                     HTTP Basic
          GET  \(base)/digest/{algorithm}/{qop}/  HTTP Digest, e.g. /digest/SHA-256/auth/, /digest/MD5-sess/auth-int/
          GET  \(base)/redirect?to=URL            redirect tests

        """
    }

    public static func identities(_ configuration: SandboxConfiguration) -> String {
        var text = "Identities (a local test service: secrets are shown):\n"
        for consumer in configuration.consumers {
            text += "  consumer \(consumer.key)"
            if let secret = consumer.secret { text += " / \(secret)" }
            if consumer.rsaPublicKeyPEM != nil { text += " (RSA-SHA1 key registered)" }
            if let name = consumer.name { text += "  \"\(name)\"" }
            text += "\n"
        }
        for token in configuration.seededTokens {
            text += "  access token \(token.token) / \(token.secret)  (\(token.user), consumer \(token.consumerKey))\n"
        }
        for user in configuration.users {
            text += "  user \(user.name) / \(user.password)\n"
        }
        return text
    }
}
