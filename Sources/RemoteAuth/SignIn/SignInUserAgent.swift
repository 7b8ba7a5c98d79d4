/// Where a person signs in: the seam between a flow (OAuth 1.0a, OAuth 2) and whatever shows the
/// provider's page and brings back the redirect: a loopback listener with the system browser
/// (`LoopbackUserAgent` in `RemoteAuthLoopback`), printing the URL and reading the pasted
/// address (``PasteUserAgent``), a system sheet on Apple platforms, or a script in tests
/// (``ScriptedUserAgent``).
///
/// The flow gives the agent two steps. `authorizationURL` turns the redirect URI the agent
/// receives at into the URL to show (the flow builds its request, `state` and PKCE for that
/// URI, or fetches a request token). `callback` judges each URL that comes back: ``SignInDecision/accept(_:)``
/// ends the sign-in with its value (the flow has redeemed the code by then, so a listener can
/// tell the browser the truth); ``SignInDecision/ignore(reason:)`` means the URL is not this
/// sign-in's answer (another `state`, injected tokens), and the agent keeps waiting
/// ([RFC 8252 §8.9](https://www.rfc-editor.org/rfc/rfc8252#section-8.9)); an error thrown ends
/// the sign-in.
public protocol SignInUserAgent: Sendable {
    /// Runs one sign-in and returns the value `callback` accepted.
    ///
    /// - Parameter redirectURI: the redirect URI the client registered, when it names one the
    ///   agent must receive at; `nil` lets the agent choose (a loopback listener's free port).
    /// - Parameter authorizationURL: turns the redirect URI the agent receives at into the URL to show.
    /// - Parameter callback: judges each URL that comes back to the redirect URI.
    func signIn<Value: Sendable>(
        redirectURI: String?,
        authorizationURL: @escaping @Sendable (_ redirectURI: String) async throws -> String,
        callback: @escaping @Sendable (_ url: String) async throws -> SignInDecision<Value>
    ) async throws -> Value
}

/// What a flow made of a URL that came back to the redirect URI.
public enum SignInDecision<Value: Sendable>: Sendable {
    /// The sign-in is done, with this value.
    case accept(Value)
    /// Not this sign-in's answer: keep waiting.
    case ignore(reason: String)
}

/// A failure of a ``SignInUserAgent`` that is not the flow's.
public struct SignInError: CodedError {
    /// What went wrong, as a stable code: compare it with `==` (the set is open).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        /// No URL came back that the flow accepted (a script ran out, the input ended).
        public static let noCallback = Code(rawValue: "noCallback")
        /// The agent cannot receive at the redirect URI it was given.
        public static let unsupportedRedirectURI = Code(rawValue: "unsupportedRedirectURI")
    }

    public let code: Code
    public let reason: String

    /// Creates the error `code` with `reason`, in plain words.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "SignInError.\(code): \(reason)" }
}

/// A user agent that follows a script: each URL it is shown is answered by `answer`, which
/// returns the URLs to bring back, in order (a test's stand-in for a person and a browser).
public struct ScriptedUserAgent: SignInUserAgent {
    /// The redirect URI used when the flow names none: where the answer comes back to.
    public let redirectURI: String
    let answer: @Sendable (_ authorizationURL: String) async throws -> [String]

    /// An agent that receives at `redirectURI` and answers each authorization URL with the URLs
    /// `answer` returns, in order.
    public init(redirectURI: String, answer: @escaping @Sendable (_ authorizationURL: String) async throws -> [String]) {
        self.redirectURI = redirectURI
        self.answer = answer
    }

    /// - Throws: ``SignInError/Code/noCallback`` when every URL of the script was ignored.
    public func signIn<Value: Sendable>(
        redirectURI: String?,
        authorizationURL: @escaping @Sendable (String) async throws -> String,
        callback: @escaping @Sendable (String) async throws -> SignInDecision<Value>
    ) async throws -> Value {
        let url = try await authorizationURL(redirectURI ?? self.redirectURI)
        var reasons: [String] = []
        for back in try await answer(url) {
            switch try await callback(back) {
            case .accept(let value): return value
            case .ignore(let reason): reasons.append(reason)
            }
        }
        throw SignInError(.noCallback, "no URL of the script was accepted: \(reasons.joined(separator: "; "))")
    }
}

/// A user agent for a machine without a browser: `present` shows the URL (print it), and
/// `readLine` returns the address the browser ended at, pasted by the person; an address that
/// is not the answer is reported through `onIgnored` and another one is read.
public struct PasteUserAgent: SignInUserAgent {
    /// The redirect URI used when the flow names none: where the answer comes back to.
    public let redirectURI: String
    let present: @Sendable (String) -> Void
    let readLine: @Sendable () async throws -> String?
    let onIgnored: @Sendable (String) -> Void

    /// An agent that receives at `redirectURI`, shows the authorization URL with `present`, reads
    /// pasted addresses with `readLine` (`nil` ends the input) and reports ignored ones to `onIgnored`.
    public init(
        redirectURI: String,
        present: @escaping @Sendable (String) -> Void,
        readLine: @escaping @Sendable () async throws -> String?,
        onIgnored: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.redirectURI = redirectURI
        self.present = present
        self.readLine = readLine
        self.onIgnored = onIgnored
    }

    /// - Throws: ``SignInError/Code/noCallback`` when the input ends first.
    public func signIn<Value: Sendable>(
        redirectURI: String?,
        authorizationURL: @escaping @Sendable (String) async throws -> String,
        callback: @escaping @Sendable (String) async throws -> SignInDecision<Value>
    ) async throws -> Value {
        present(try await authorizationURL(redirectURI ?? self.redirectURI))
        while let line = try await readLine() {
            let pasted = line.trimmingWhitespace()
            guard !pasted.isEmpty else { continue }
            switch try await callback(pasted) {
            case .accept(let value): return value
            case .ignore(let reason): onIgnored(reason)
            }
        }
        throw SignInError(.noCallback, "the input ended before the address the browser was sent to was pasted")
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
