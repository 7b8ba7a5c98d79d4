import RemoteAuth

/// The text the sandbox prints at start and serves at `/`.
public enum SandboxBanner {
    /// The list of the sandbox's endpoints, each under `base` (its base URL, without a trailing slash).
    public static func endpoints(base: String) -> String {
        """
        Endpoints:
          POST \(base)/oauth/request_token        OAuth 1.0a temporary credentials (x_auth_mode=reverse_auth for reverse auth)
          GET  \(base)/oauth/authorize            consent page
          POST \(base)/oauth/access_token         token credentials (x_reverse_auth_target for reverse auth)
          POST \(base)/1.1/statuses/update.json   status=TEXT (OAuth 1.0a signed, Bearer with statuses:write, SigV4 or RFC 9421)
          GET  \(base)/1.1/statuses/home_timeline.json
          GET  \(base)/1.1/account/verify_credentials.json   (reads: Bearer needs statuses:read)
          GET  \(base)/files                      a second protected resource: tokens with resource=\(base)/files only
          GET  \(base)/.well-known/oauth-protected-resource/1.1   RFC 9728 resource metadata (also …/files)
          GET  \(base)/.well-known/oauth-authorization-server   OAuth 2 metadata (also /.well-known/openid-configuration)
          GET  \(base)/oauth2/authorize           OAuth 2 consent page (code + PKCE S256)
          POST \(base)/oauth2/token               OAuth 2 tokens (authorization_code, refresh_token, client_credentials, device_code)
          POST \(base)/oauth2/par                 OAuth 2 pushed authorization requests (RFC 9126)
          POST \(base)/oauth2/register            dynamic client registration (RFC 7591; RFC 7592 at registration_client_uri)
          POST \(base)/oauth2/device_authorization
          GET  \(base)/device                     device flow: enter the user code
          POST \(base)/oauth2/revoke
          POST \(base)/oauth2/introspect
          GET  \(base)/oauth2/jwks                OpenID Connect: the ID token signing keys (JWK Set)
          GET  \(base)/oauth2/userinfo            OpenID Connect UserInfo (also POST)
          GET  \(base)/oauth2/logout              OpenID Connect RP-Initiated Logout (also POST)
          GET  \(base)/basic/                     HTTP Basic
          GET  \(base)/digest/{algorithm}/{qop}/  HTTP Digest, e.g. /digest/SHA-256/auth/, /digest/MD5-sess/auth-int/
          GET  \(base)/redirect?to=URL            redirect tests
          GET  \(base)/openapi.json              OpenAPI 3.1 document: the status API, Basic and Digest

        """
    }

    /// The consumers, seeded access tokens and OAuth 2 clients of `configuration`, secrets included.
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
        for client in configuration.oauth2Clients {
            text += "  oauth2 client \(client.id)"
            if let secret = client.secret {
                text += " / \(secret)"
            } else if client.isConfidential {
                text += " (\(client.tokenEndpointAuthMethod ?? "private_key_jwt"))"
            } else {
                text += " (public)"
            }
            if !client.redirectURIs.isEmpty { text += "  redirect \(client.redirectURIs.joined(separator: ", "))" }
            text += "\n"
        }
        for key in configuration.awsKeys {
            text += "  aws key \(key.accessKeyID) / \(key.secret)  (\(key.user), SigV4, any region and service)\n"
        }
        for key in configuration.httpSignatureKeys {
            text += "  http signature key \(key.keyID)  (\(key.user), \(key.algorithm), RFC 9421"
            if key.keyID == SandboxConfiguration.DemoSignatureKeys.clientKeyID {
                text += "; private key: remote-auth sandbox --write-signature-key FILE"
            }
            text += ")\n"
        }
        if let key = configuration.httpSignatureResponseKey {
            text += "  response signature key \(key.keyID)  (\(key.algorithm), signs responses asked for with Accept-Signature"
            if key.keyID == SandboxConfiguration.DemoSignatureKeys.responseKeyID {
                text += "; x=\(SandboxConfiguration.DemoSignatureKeys.responsePublicKeyX); public key: --write-response-key FILE"
            }
            text += ")\n"
        }
        for user in configuration.users {
            text += "  user \(user.name) / \(user.password)\n"
        }
        return text
    }
}
