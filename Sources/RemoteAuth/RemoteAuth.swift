/// RemoteAuth: authentication to remote HTTP services.
///
/// The core is pure logic: percent-encoding, OAuth 1.0a signatures, Basic and Digest
/// credentials, `WWW-Authenticate` parsing. It does no I/O and has no clock or randomness of its
/// own: timestamps, nonces and cnonces are passed in (see ``OAuth1/NonceSource``).
public enum RemoteAuth {}
