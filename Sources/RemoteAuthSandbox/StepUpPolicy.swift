/// The sandbox's step-up rule ([RFC 9470 §3](https://www.rfc-editor.org/rfc/rfc9470#section-3)):
/// writes to the status API need an authentication of class ``acr``, at most ``maxAge`` seconds
/// old. A sign-in whose authorization request asks for ``acr`` in `acr_values` is taken to have
/// performed it (the sandbox's consent stands for the stronger authentication); any other
/// sign-in is of class ``baselineACR``.
public struct StepUpPolicy: Sendable, Hashable {
    /// The class every other sign-in gets: a password, say.
    public static let baselineACR = "urn:remote-auth:sandbox:acr:password"
    /// The default stronger class: a second factor, say.
    public static let defaultACR = "urn:remote-auth:sandbox:acr:mfa"
    /// The class a write needs.
    public var acr: String
    /// The most seconds since the sign-in a write accepts (`max_age` in the challenge), or `nil`.
    public var maxAge: Int64?

    /// Creates a rule: writes need class `acr` (default `defaultACR`), at most `maxAge` seconds old
    /// (`nil`: any age).
    public init(acr: String = StepUpPolicy.defaultACR, maxAge: Int64? = nil) {
        self.acr = acr
        self.maxAge = maxAge
    }
}
