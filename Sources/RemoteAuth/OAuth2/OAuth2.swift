/// OAuth 2.0: [RFC 6749](https://www.rfc-editor.org/rfc/rfc6749), with PKCE
/// ([RFC 7636](https://www.rfc-editor.org/rfc/rfc7636)), Bearer tokens
/// ([RFC 6750](https://www.rfc-editor.org/rfc/rfc6750)), the device grant
/// ([RFC 8628](https://www.rfc-editor.org/rfc/rfc8628)), revocation
/// ([RFC 7009](https://www.rfc-editor.org/rfc/rfc7009)), introspection
/// ([RFC 7662](https://www.rfc-editor.org/rfc/rfc7662)) and server metadata
/// ([RFC 8414](https://www.rfc-editor.org/rfc/rfc8414)), following the security BCP
/// ([RFC 9700](https://www.rfc-editor.org/rfc/rfc9700)).
///
/// Everything here is pure: requests are built and responses parsed as values, and the flows
/// run over an ``HTTPTransport`` with the clock (`now`, seconds since 1970) and the
/// ``RandomSource`` injected.
public enum OAuth2 {}
