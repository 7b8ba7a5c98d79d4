import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// Issue 26 in the tool: `authorize oauth2 --resource URL` and `request URL --sign-in` against
/// `remote-auth sandbox`, from the resource's URL alone: its 401 and metadata (RFC 9728), the
/// authorization server's (RFC 8414), a dynamic registration (RFC 7591), code + PKCE with the
/// resource indicator (RFC 8707); and the refusals, each with its exit status and nothing saved.
@Suite(.timeLimit(.minutes(5))) struct ResourceSignInCLITests {
    /// The browser's part: the consent (auto-approved) and the redirect to the listener.
    static func approve(_ command: BackgroundCLI, base: String) async throws -> String {
        try await command.waitForError("Waiting for the browser")
        let url = try #require(command.line(startingWith: base + "/oauth2/authorize?"), "\(command.errors)")
        let redirect = try await httpGetLocation(url)
        _ = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: redirect))
        return url
    }

    static func query(_ url: String, _ name: String) -> String? {
        URLComponents(string: url)?.queryItems?.first { $0.name == name }?.value
    }

    @Test func authorizeFromTheResourceAlone() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        let resource = base + "/1.1"
        let authorize = try BackgroundCLI(
            ["authorize", "oauth2", "--resource", resource, "--profile", "api", "--no-browser", "--timeout", CLI.hangGuardSeconds],
            environment: environment
        )
        let url = try await Self.approve(authorize, base: base)
        let signedIn = await authorize.finish()
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        #expect(signedIn.stdout.hasSuffix("Signed in; saved as profile 'api'.\n"), "\(signedIn.stdout)")
        // RFC 8707 §2: the resource indicator, exactly the metadata's resource; PKCE S256.
        #expect(Self.query(url, "resource") == resource)
        #expect(Self.query(url, "code_challenge_method") == "S256")
        let clientID = try #require(Self.query(url, "client_id"))
        let redirectURI = try #require(Self.query(url, "redirect_uri"))
        #expect(redirectURI.hasPrefix("http://127.0.0.1:") && redirectURI.hasSuffix("/callback"))
        let lines = signedIn.stderr.split(separator: "\n").map(String.init)
        #expect(
            Array(lines.prefix(3)) == [
                "Looking for the authorization server of \(resource) (RFC 9728)…",
                "The resource \(resource) is guarded by \(base) (its metadata checked: issuer, PKCE S256).",
                "Registered as client \(clientID) at \(base) (RFC 7591).",
            ],
            "\(signedIn.stderr)"
        )

        // The token goes to the resource; the profile keeps the registration (RFC 7592).
        let call = try await CLI.run(
            ["request", "--profile", "api", resource + "/account/verify_credentials.json"],
            environment: environment
        )
        #expect(call.status == 0, "\(call.stderr)")
        #expect(call.stdout == #"{"id":1001,"id_str":"1001","name":"alice","screen_name":"alice"}"#)
        // The token is for the status API: never sent to the other resource on the origin.
        let other = try await CLI.run(["request", "--profile", "api", base + "/files"], environment: environment)
        #expect(other.status == 2)
        #expect(other.stderr == "remote-auth: profile 'api' sends its token to \(base)/1.1 only, not to \(base)/files\n")
        let show = try await CLI.run(["profiles", "show", "api"], environment: environment)
        #expect(show.stdout.contains("\nclient: \(clientID) (none)\n"), "\(show.stdout)")
        #expect(show.stdout.contains("\nresource indicators: \(resource)\n"), "\(show.stdout)")
        #expect(
            show.stdout.contains("\nregistration: \(base)/oauth2/register/\(clientID) (RFC 7592)\n"),
            "\(show.stdout)"
        )
        let file = try String(contentsOfFile: home + "/tokens.json", encoding: .utf8)
        #expect(file.contains("\"registrationAccessToken\""))

        // RFC 7592: the registration listed, read at the server (no secret printed), deleted.
        let list = try await CLI.run(["registrations", "list"], environment: environment)
        #expect(list.stdout == "api \(clientID) \(base)\n", "\(list.stderr)")
        let read = try await CLI.run(["registrations", "show", "api"], environment: environment)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.hasPrefix("profile: api\nregistration: \(base)/oauth2/register/\(clientID)\nclient_id: \(clientID)\n"), "\(read.stdout)")
        #expect(read.stdout.contains("\nredirect_uris: [\"\(redirectURI)\"]\n"), "\(read.stdout)")
        #expect(read.stdout.contains("\ntoken_endpoint_auth_method: none\n"), "\(read.stdout)")
        let token = try #require(
            file.firstMatch(of: /"registrationAccessToken"\s*:\s*"([^"]+)"/).map { String($0.1) }
        )
        #expect(!read.stdout.contains(token))
        let deleted = try await CLI.run(["registrations", "delete", "api"], environment: environment)
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout == "Deleted client \(clientID) at \(base) (RFC 7592) and removed profile 'api'.\n")
        var gone = try HTTPRequest(method: .get, absoluteURL: "\(base)/oauth2/register/\(clientID)")
        gone.headerFields[.authorization] = "Bearer " + token
        #expect(try await httpExchange(gone).0 == 401)
        #expect(try await CLI.run(["registrations", "list"], environment: environment).stdout == "")
        let again = try await CLI.run(["registrations", "show", "api"], environment: environment)
        #expect(again.status == 2)
        #expect(again.stderr == "remote-auth: unknown profile: 'api' (see 'remote-auth profiles list')\n")
    }

    /// `request URL --sign-in`: the URL is under the resource (`/1.1/...`); the sign-in, then
    /// the request with the new profile; the second time the profile exists and is used as is.
    @Test func requestSignsInThenSends() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        let target = base + "/1.1/account/verify_credentials.json"
        let request = try BackgroundCLI(
            ["request", target, "--sign-in", "--profile", "me", "--no-browser", "--timeout", CLI.hangGuardSeconds],
            environment: environment
        )
        let url = try await Self.approve(request, base: base)
        let done = await request.finish()
        #expect(done.status == 0, "\(done.stderr)")
        #expect(Self.query(url, "resource") == base + "/1.1")
        #expect(
            done.stdout.hasSuffix("\n" + #"{"id":1001,"id_str":"1001","name":"alice","screen_name":"alice"}"#),
            "\(done.stdout)"
        )
        #expect(done.stderr.hasSuffix("Signed in; saved as profile 'me'.\n"), "\(done.stderr)")
        #expect(done.stderr.contains("The resource \(base)/1.1 is guarded by \(base) "), "\(done.stderr)")

        let again = try await CLI.run(["request", target, "--sign-in", "--profile", "me"], environment: environment)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr == "")
        #expect(again.stdout == #"{"id":1001,"id_str":"1001","name":"alice","screen_name":"alice"}"#)
    }

    /// A resource that takes only DPoP-bound tokens (RFC 9449 §5.2): the sign-in binds its
    /// tokens to a new key without being asked, the profile keeps the key, and each request
    /// proves it; a Bearer token is refused there.
    @Test func aResourceThatRequiresDPoP() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve", "--require-dpop"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        let update = ["request", base + "/1.1/statuses/update.json", "-d", "status=bound", "--profile", "d"]
        let request = try BackgroundCLI(update + ["--sign-in", "--no-browser", "--timeout", CLI.hangGuardSeconds], environment: environment)
        let url = try await Self.approve(request, base: base)
        let done = await request.finish()
        #expect(done.status == 0, "\(done.stderr)")
        #expect(
            done.stderr.contains(
                "The resource takes only DPoP-bound tokens (dpop_bound_access_tokens_required): signing in with a new DPoP key (RFC 9449).\n"
            ),
            "\(done.stderr)"
        )
        // RFC 9449 §10: the code is bound to the key's thumbprint.
        let jkt = try #require(Self.query(url, "dpop_jkt"))
        #expect(done.stdout.contains(#""text":"bound""#), "\(done.stdout)")
        let show = try await CLI.run(["profiles", "show", "d"], environment: environment)
        #expect(show.stdout.contains("\ndpop key: jkt \(jkt)\n"), "\(show.stdout)")
        let verbose = try await CLI.run(
            ["request", "-v", "--profile", "d", base + "/1.1/account/verify_credentials.json"],
            environment: environment
        )
        #expect(verbose.status == 0, "\(verbose.stderr)")
        #expect(verbose.stderr.contains("\n> DPoP: <redacted>\n> Authorization: DPoP <redacted>\n"), "\(verbose.stderr)")
        // The sandbox refuses the same token as Bearer (dpop_bound_access_tokens_required).
        #expect(!verbose.stderr.contains("Bearer"))
    }

    /// A document about another resource (RFC 9728 §3.3): exit 111, the rule named, nothing saved.
    @Test func metadataForAnotherResourceIsRefused() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        let result = try await CLI.run(
            [
                "authorize", "oauth2", "--resource", base + "/1.1/account/verify_credentials.json", "--profile", "x",
                "--no-browser",
            ],
            environment: environment
        )
        #expect(result.status == 111, "\(result.stderr)")
        #expect(
            result.stderr.hasSuffix(
                "remote-auth: sign-in failed: GET \(base)/.well-known/oauth-protected-resource/1.1: the metadata is for '\(base)/1.1', not '\(base)/1.1/account/verify_credentials.json' (RFC 9728 §3.3)\n"
            ),
            "\(result.stderr)"
        )
        let list = try await CLI.run(["profiles", "list"], environment: environment)
        #expect(!list.stdout.contains("x"), "\(list.stdout)")
    }

    /// Signed metadata (RFC 9728 §2.2): with the sandbox's key the sign-in goes through and
    /// says so; with another key, or against unsigned metadata, it stops with exit 111 and
    /// nothing saved.
    @Test func signedMetadataVerifiedWithTheGivenKey() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let key = home + "/resource-metadata.jwk"
        let sandbox = try SandboxProcess(["--auto-approve", "--write-resource-metadata-key", key])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        let resource = base + "/1.1"
        let signIn = ["authorize", "oauth2", "--resource", resource, "--no-browser", "--timeout", CLI.hangGuardSeconds]

        let other = home + "/other.jwk"
        try Data(try JOSE.SigningKey.generateP256(keyID: "sandbox-resource-metadata").publicJWK!.json())
            .write(to: URL(fileURLWithPath: other))
        let forged = try await CLI.run(signIn + ["--profile", "x", "--resource-metadata-key", other], environment: environment)
        #expect(forged.status == 111, "\(forged.stderr)")
        #expect(
            forged.stderr.hasSuffix(
                "remote-auth: sign-in failed: GET \(base)/.well-known/oauth-protected-resource/1.1: the signed_metadata of \(resource) does not verify: the ES256 signature does not verify (RFC 9728 §2.2)\n"
            ),
            "\(forged.stderr)"
        )

        let authorize = try BackgroundCLI(signIn + ["--profile", "p", "--resource-metadata-key", key], environment: environment)
        _ = try await Self.approve(authorize, base: base)
        let signedIn = await authorize.finish()
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        #expect(
            signedIn.stderr.contains(
                "The resource \(resource) is guarded by \(base) (its metadata checked: issuer, PKCE S256, signed_metadata verified).\n"
            ),
            "\(signedIn.stderr)"
        )

        let unsigned = try SandboxProcess(["--auto-approve"])
        let unsignedBase = try await unsigned.baseURL()
        let refused = try await CLI.run(
            ["authorize", "oauth2", "--resource", unsignedBase + "/1.1", "--profile", "y", "--resource-metadata-key", key],
            environment: environment
        )
        #expect(refused.status == 111, "\(refused.stderr)")
        #expect(
            refused.stderr.hasSuffix(
                "the metadata of \(unsignedBase)/1.1 has no signed_metadata, and signed metadata is required (RFC 9728 §2.2)\n"
            ),
            "\(refused.stderr)"
        )
        let list = try await CLI.run(["profiles", "list"], environment: environment)
        #expect(list.stdout.split(separator: "\n").map { $0.prefix { $0 != " " } } == ["p"], "\(list.stdout)")
    }

    /// A registration endpoint that wants an initial access token refuses without it: exit 112,
    /// the server's error; with it (on stdin), the sign-in goes through.
    @Test func registrationRefusedThenAllowed() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve", "--registration-token", "let-me-register"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        let refused = try await CLI.run(
            ["authorize", "oauth2", "--resource", base + "/1.1", "--profile", "x", "--no-browser", "--timeout", CLI.hangGuardSeconds],
            environment: environment
        )
        #expect(refused.status == 112, "\(refused.stderr)")
        #expect(
            refused.stderr.contains(
                "remote-auth: sign-in failed: the registration was refused: the server refused: invalid_token"
            ),
            "\(refused.stderr)"
        )
        let none = try await CLI.run(["profiles", "list"], environment: environment)
        #expect(!none.stdout.contains("x"), "\(none.stdout)")

        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--resource", base + "/1.1", "--profile", "x", "--no-browser", "--timeout", CLI.hangGuardSeconds,
                "--initial-access-token", "-",
            ],
            environment: environment
        )
        authorize.input.fileHandleForWriting.write(Data("let-me-register\n".utf8))
        try authorize.input.fileHandleForWriting.close()
        _ = try await Self.approve(authorize, base: base)
        let signedIn = await authorize.finish()
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
    }

    /// Step-up (RFC 6750 §3.1, the MCP's step-up): a read-only profile posts; without
    /// --sign-in the tool says what the server asked for; with it, it signs in again asking for
    /// both scopes with the registration it made before (same client, same redirect URI), and
    /// the post goes through.
    @Test func stepUpForAMissingScope() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--resource", base + "/1.1", "--profile", "ro", "--scope", "statuses:read",
                "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ],
            environment: environment
        )
        let first = try await Self.approve(authorize, base: base)
        #expect(await authorize.finish().status == 0)
        let firstClient = try #require(Self.query(first, "client_id"))
        let update = ["request", "--profile", "ro", "-d", "status=stepped up", base + "/1.1/statuses/update.json"]

        let refused = try await CLI.run(update, environment: environment)
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains(
                "remote-auth: the resource asks for the scope statuses:write (insufficient_scope, RFC 6750 §3.1); sign in again for it with --sign-in\n"
            ),
            "\(refused.stderr)"
        )

        let stepped = try BackgroundCLI(update + ["--sign-in", "--no-browser", "--timeout", CLI.hangGuardSeconds], environment: environment)
        let second = try await Self.approve(stepped, base: base)
        let done = await stepped.finish()
        #expect(done.status == 0, "\(done.stderr)")
        #expect(Self.query(second, "scope") == "statuses:read statuses:write")
        #expect(Self.query(second, "resource") == base + "/1.1")
        #expect(done.stdout.contains(#""text":"stepped up""#), "\(done.stdout)")
        #expect(
            done.stderr.hasPrefix(
                "remote-auth: the resource asks for the scope statuses:write (insufficient_scope, RFC 6750 §3.1): signing in again for \(base)/1.1.\n"
            ),
            "\(done.stderr)"
        )
        #expect(
            done.stderr.contains("Using the registration made earlier at \(base), client \(firstClient).\n"),
            "\(done.stderr)"
        )
        #expect(Self.query(second, "client_id") == firstClient)
        #expect(Self.query(second, "redirect_uri") == Self.query(first, "redirect_uri"))
        #expect(!done.stderr.contains("Deleted the previous registration"), "\(done.stderr)")
        let show = try await CLI.run(["profiles", "show", "ro"], environment: environment)
        #expect(show.stdout.contains("\nscope: statuses:read statuses:write\n"), "\(show.stdout)")
        let list = try await CLI.run(["registrations", "list"], environment: environment)
        #expect(list.stdout == "ro \(firstClient) \(base)\n", "\(list.stderr)")
    }

    /// RFC 9470 step-up: under `sandbox --step-up`, a write needs a sign-in of the stronger
    /// class. The post is refused with `insufficient_user_authentication`, `acr_values` and
    /// `max_age`; the new sign-in asks for them, the ID token's `acr` is checked (the profile
    /// asked for `openid`), and the post goes through.
    @Test func stepUpForAStrongerSignIn() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve", "--step-up", "--step-up-max-age", "600"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--resource", base + "/1.1", "--profile", "p",
                "--scope", "openid statuses:read statuses:write", "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ],
            environment: environment
        )
        let first = try await Self.approve(authorize, base: base)
        #expect(await authorize.finish().status == 0)
        #expect(Self.query(first, "acr_values") == nil)
        let update = ["request", "--profile", "p", "-d", "status=strongly", base + "/1.1/statuses/update.json"]
        let mfa = "urn:remote-auth:sandbox:acr:mfa"
        let asked = "the resource asks for a stronger or more recent sign-in: acr_values \(mfa), max_age 600 (insufficient_user_authentication, RFC 9470 §3)"

        let refused = try await CLI.run(update + ["-i"], environment: environment)
        #expect(refused.status == 1)
        #expect(refused.stdout.hasPrefix("HTTP/1.1 401 Unauthorized\r\n"), "\(refused.stdout)")
        #expect(
            refused.stdout.contains(
                "\r\nWWW-Authenticate: Bearer realm=\"RemoteAuth Sandbox\", error=\"insufficient_user_authentication\", acr_values=\"\(mfa)\", max_age=600, resource_metadata=\"\(base)/.well-known/oauth-protected-resource/1.1\"\r\n"
            ),
            "\(refused.stdout)"
        )
        #expect(refused.stderr.contains("remote-auth: \(asked); sign in again for it with --sign-in\n"), "\(refused.stderr)")
        // Reading needs no step-up.
        let read = try await CLI.run(
            ["request", "--profile", "p", base + "/1.1/account/verify_credentials.json"],
            environment: environment
        )
        #expect(read.status == 0, "\(read.stderr)")

        let stepped = try BackgroundCLI(update + ["--sign-in", "--no-browser", "--timeout", CLI.hangGuardSeconds], environment: environment)
        let second = try await Self.approve(stepped, base: base)
        let done = await stepped.finish()
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stderr.hasPrefix("remote-auth: \(asked): signing in again for \(base)/1.1.\n"), "\(done.stderr)")
        #expect(Self.query(second, "acr_values") == mfa)
        #expect(Self.query(second, "max_age") == "600")
        #expect(Self.query(second, "scope") == "openid statuses:read statuses:write")
        #expect(done.stdout.contains(#""text":"strongly""#), "\(done.stdout)")
    }
}
