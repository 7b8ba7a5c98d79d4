import ArgumentParser
import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthFileStore
import RemoteAuthLoopback

struct AuthorizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authorize",
        abstract: "Sign in to a provider and keep the token under a profile.",
        discussion: ExitStatus.help,
        subcommands: [AuthorizeOAuth1.self, AuthorizeOAuth2.self, AuthorizeReverseAuth.self]
    )
}

/// The options every OAuth 1.0a sign-in shares.
struct OAuth1ProviderOptions: ParsableArguments {
    @Option(help: "The profile name the token is kept under.")
    var profile: String

    @Option(help: "The client (consumer) key.")
    var consumerKey: String

    @OptionGroup(title: "Profiles") var storeOptions: StoreOptions

    func validate() throws {
        try ProfileName.check(profile)
    }

    @Option(
        parsing: .unconditional,
        help: "The client (consumer) secret, '-' to read it from stdin, or REMOTE_AUTH_CONSUMER_SECRET."
    )
    var consumerSecret: String?

    @Option(help: "The temporary-credential (request token) URL.")
    var requestTokenURL: String

    @Option(help: "The token-credential (access token) URL.")
    var accessTokenURL: String

    func client() throws -> OAuth1.ClientCredentials {
        guard
            let secret = try SecretInput.resolve(
                consumerSecret,
                environment: "REMOTE_AUTH_CONSUMER_SECRET",
                option: "--consumer-secret"
            )
        else {
            throw CLIFailure("missing secret: --consumer-secret (or REMOTE_AUTH_CONSUMER_SECRET) is required")
        }
        return OAuth1.ClientCredentials(key: consumerKey, secret: secret)
    }

    /// The provider's endpoints; reverse auth has no authorize step, so its profile keeps the
    /// request token URL there unless `--authorize-url` names one.
    func provider(authorizeURL: String?) -> OAuth1.Provider {
        OAuth1.Provider(
            requestTokenURL: requestTokenURL,
            authorizeURL: authorizeURL ?? requestTokenURL,
            accessTokenURL: accessTokenURL
        )
    }
}

/// What is wrong with a store file and the command that fixes it.
func message(for error: FileStoreError) -> String {
    switch error.code {
    case .permissionsTooOpen:
        "\(error.reason): run 'chmod 600 \(error.path)'"
    case .corruptFile:
        "\(error.reason): repair it, or move it aside ('mv \(error.path) \(error.path).bad') and sign in again"
    default:
        error.reason
    }
}

func unixNow() -> Int64 { Int64(Date().timeIntervalSince1970) }

/// What a profile may be called: 1 to 64 of `A–Z a–z 0–9 . _ -`, not starting with `-` or `.`.
/// A name is printed in `profiles list` rows and in messages: a newline or an escape sequence in
/// it could forge rows or rewrite the screen, and an empty one reads as nothing.
enum ProfileName {
    static func check(_ name: String) throws {
        let allowed = name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard (1...64).contains(name.utf8.count), allowed, !name.hasPrefix("-"), !name.hasPrefix(".") else {
            throw ValidationError(
                "--profile must be 1 to 64 letters, digits, '.', '_' or '-', not starting with '-' or '.', not '\(PeerText.printable(name, limit: 80))'"
            )
        }
    }
}

/// Saves the session as the only one under the profile; returns the account name used.
func saveProfile(_ profile: String, _ session: OAuth1.Session, in store: ProfileStore) async throws -> String {
    let account = session.accessToken.screenName ?? session.accessToken.userID ?? "default"
    try await store.replace(profile: profile, with: .oauth1(session), account: account)
    return account
}

func describe(_ error: any Error) -> String {
    switch error {
    case let error as OAuth1.FlowError: return error.reason
    case let error as OAuth1Error: return error.reason
    case let error as LoopbackCallbackListener.ListenerError: return error.reason
    // Only `request` has --connect-timeout and --max-time: no hint names them elsewhere.
    case let error as TransportError: return RequestCommand.message(for: error, timeoutOptions: nil)
    case let error as TrustRejection: return RequestCommand.message(for: error)
    case let error as ClientError: return RequestCommand.message(for: error)
    case let error as FileStoreError: return message(for: error)
    // Every other error of the library: its reason, never a Swift type name.
    case let error as any CodedError: return error.reason
    default: return "\(error)"
    }
}

struct AuthorizeOAuth1: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oauth1",
        abstract: "The OAuth 1.0a three-legged flow (or the PIN flow), keeping the token under --profile.",
        discussion: ExitStatus.discussion(
            """
            Without --pin, a listener on 127.0.0.1 with a free port is the callback (RFC 8252 §7.3); the \
            authorize URL opens in the browser (xdg-open or open), or is printed with --no-browser. With \
            --pin, the callback is oob and the PIN is read from standard input. The token is kept in \
            the desktop keyring when one answers, else in $REMOTE_AUTH_HOME/tokens.json (else \
            $XDG_CONFIG_HOME/remote-auth/tokens.json), mode 0600 (--store).
            """
        )
    )

    @OptionGroup var options: OAuth1ProviderOptions

    @Option(help: "The resource-owner authorization URL.")
    var authorizeURL: String

    @Flag(help: "Use the PIN (oob) flow: print the URL and read the PIN from standard input.")
    var pin = false

    @Flag(help: "Print the authorize URL instead of opening the browser.")
    var noBrowser = false

    @Option(help: "Seconds to wait for the browser (at least 1).")
    var timeout = 300

    func validate() throws {
        guard timeout > 0 else {
            throw ValidationError("--timeout must be a whole number of seconds, at least 1, not \(timeout)")
        }
    }

    func run() async throws {
        let client = try options.client()
        // A store that cannot be used fails now, not after the sign-in.
        let store = try await options.storeOptions.open()
        let provider = options.provider(authorizeURL: authorizeURL)
        let pin = self.pin
        let noBrowser = self.noBrowser
        let timeout = self.timeout
        let profile = options.profile
        do {
            let access: OAuth1.AccessToken = try await AsyncHTTPClientTransport.withTransport { transport in
                let flow = OAuth1.Flow(provider: provider, client: client, transport: transport, now: unixNow)
                if pin {
                    return try await flow.signIn(callback: "oob") { url in
                        Terminal.writeError("Open this URL in a browser, authorize, then type the PIN:\n")
                        Terminal.writeLine(url)
                        Terminal.writeError("PIN: ")
                        guard let typed = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces),
                            !typed.isEmpty
                        else {
                            throw CLIFailure("no PIN: nothing was typed")
                        }
                        return typed
                    }
                }
                return try await LoopbackCallbackListener.withListener { callbackURL, listener in
                    let requestToken = try await flow.requestToken(callback: callbackURL)
                    presentAuthorizationURL(flow.authorizeURL(for: requestToken), noBrowser: noBrowser)
                    Terminal.writeError("Waiting for the browser to come back to \(callbackURL) (up to \(timeout) s)…\n")
                    return try await listener.accessToken(
                        for: requestToken,
                        flow: flow,
                        timeout: .seconds(timeout),
                        onIgnored: { reason in
                            Terminal.writeError(
                                "Ignored a request to \(callbackURL): \(PeerText.printable(reason)); still waiting.\n"
                            )
                        }
                    )
                }
            }
            let account = try await saveProfile(
                profile,
                OAuth1.Session(provider: provider, client: client, accessToken: access),
                in: store
            )
            Terminal.writeLine("Signed in as \(PeerText.printable(account)); saved as profile '\(profile)'.")
        } catch let failure as CLIFailure {
            throw failure
        } catch {
            throw CLIFailure("sign-in failed: \(describe(error))", status: ExitStatus(for: error))
        }
    }

    /// `xdg-open` (or `open` on macOS); `false` when neither could be started.
    static func openBrowser(_ url: String) -> Bool { LoopbackUserAgent.openInSystemBrowser(url) }
}

struct AuthorizeReverseAuth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse-auth",
        abstract: "Twitter's reverse auth: a device's account signs in the app of --consumer-key.",
        discussion: ExitStatus.discussion(
            """
            Step 1 asks the request token URL, signed with the app's credentials, for the \
            x_reverse_auth_parameters; step 2 calls the access token URL signed with the device's client \
            and access token. The app's token for the device's user is kept under --profile.
            """
        )
    )

    @OptionGroup var options: OAuth1ProviderOptions

    @Option(help: "The resource-owner authorization URL, kept with the profile (reverse auth does not use it).")
    var authorizeURL: String?

    @Option(help: "The device's client key.")
    var deviceConsumerKey: String

    @Option(
        parsing: .unconditional,
        help: "The device's client secret, '-' to read it from stdin, or REMOTE_AUTH_DEVICE_CONSUMER_SECRET."
    )
    var deviceConsumerSecret: String?

    @Option(
        parsing: .unconditional,
        help: "The device account's access token, '-' to read it from stdin, or REMOTE_AUTH_DEVICE_TOKEN."
    )
    var deviceToken: String?

    @Option(
        parsing: .unconditional,
        help: "The device account's access token secret, '-' to read it from stdin, or REMOTE_AUTH_DEVICE_TOKEN_SECRET."
    )
    var deviceTokenSecret: String?

    /// A device secret from its option, stdin or the environment.
    static func secret(_ value: String?, option: String, environment: String) throws -> String {
        guard let secret = try SecretInput.resolve(value, environment: environment, option: option) else {
            throw CLIFailure("missing secret: \(option) (or \(environment)) is required")
        }
        return secret
    }

    func run() async throws {
        let client = try options.client()
        // A store that cannot be used fails now, not after the sign-in.
        let store = try await options.storeOptions.open()
        let provider = options.provider(authorizeURL: authorizeURL)
        let device = OAuth1.ClientCredentials(
            key: deviceConsumerKey,
            secret: try Self.secret(
                deviceConsumerSecret,
                option: "--device-consumer-secret",
                environment: "REMOTE_AUTH_DEVICE_CONSUMER_SECRET"
            )
        )
        let deviceToken = OAuth1.TokenCredentials(
            token: try Self.secret(self.deviceToken, option: "--device-token", environment: "REMOTE_AUTH_DEVICE_TOKEN"),
            secret: try Self.secret(
                deviceTokenSecret,
                option: "--device-token-secret",
                environment: "REMOTE_AUTH_DEVICE_TOKEN_SECRET"
            )
        )
        do {
            let access = try await AsyncHTTPClientTransport.withTransport { transport in
                let app = OAuth1.Flow(provider: provider, client: client, transport: transport, now: unixNow)
                let parameters = try await app.reverseAuthParameters()
                let deviceFlow = OAuth1.Flow(provider: provider, client: device, transport: transport, now: unixNow)
                return try await deviceFlow.reverseAuthAccessToken(
                    deviceToken: deviceToken,
                    targetConsumerKey: client.key,
                    parameters: parameters
                )
            }
            let account = try await saveProfile(
                options.profile,
                OAuth1.Session(provider: provider, client: client, accessToken: access),
                in: store
            )
            Terminal.writeLine("Signed in as \(PeerText.printable(account)) by reverse auth; saved as profile '\(options.profile)'.")
        } catch {
            throw CLIFailure("reverse auth failed: \(describe(error))", status: ExitStatus(for: error))
        }
    }
}
