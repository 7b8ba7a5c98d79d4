/// The one shape of this library's errors: a code from an open set (compared with `==`, never
/// exhaustively switched on: new codes arrive in minor releases) and a reason for people, which
/// names what failed and never holds a secret. Every error type of the package conforms, so a
/// caller can show any of them without knowing its type:
///
/// ```swift
/// catch let error as any CodedError { print("\(error.code): \(error.reason)") }
/// ```
public protocol CodedError: Error, Hashable, CustomStringConvertible {
    /// The error's code: a type of static constants, an open set compared with `==`.
    associatedtype Code: Hashable, Sendable, CustomStringConvertible
    /// What went wrong, for programs.
    var code: Code { get }
    /// What went wrong, for people: no type names, no secrets.
    var reason: String { get }
}

extension BasicError: CodedError {}
extension ChallengeError: CodedError {}
extension ClientError: CodedError {}
extension TransportError: CodedError {}
extension DigestError: CodedError {}
extension JOSE.Error: CodedError {}
extension OAuth1.FlowError: CodedError {}
extension OAuth1Error: CodedError {}
extension OAuth2.DPoP.Error: CodedError {}
extension OAuth2.Error: CodedError {}
extension OpenIDConnect.Error: CodedError {}
extension RequestURLError: CodedError {}
extension FormURLEncodingError: CodedError {}
extension JSONValue.ParseError: CodedError {}
extension TrustError: CodedError {}

extension RequestURLError {
    /// `invalidURL`: the one thing this error says.
    public var code: String { "invalidURL" }
}

extension JSONValue.ParseError {
    /// `invalidJSON`: the one thing this error says (``offset`` says where).
    public var code: String { "invalidJSON" }
}
