public import HTTPTypes

/// The challenges of every `WWW-Authenticate` (or `Proxy-Authenticate`) field that parsed, and
/// an error for each field that did not.
///
/// A response may carry several challenge fields
/// ([RFC 9110 §11.6.1](https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1)), often written
/// by different layers (a proxy module, the application). Parsed one field at a time, a
/// malformed field costs only its own challenges: a good `Digest` challenge in another field is
/// still found. Within one field a syntax error drops the whole field, since the comma that
/// separates challenges also separates parameters and there is no safe point to resume.
public struct ParsedChallenges: Sendable, Hashable {
    /// The challenges of the fields that parsed, in field order.
    public var challenges: [AuthenticationChallenge]
    /// One error per malformed field, in field order; its reason names the field by name and
    /// 1-based index, and the offset within it, never a parameter value.
    public var errors: [ChallengeError]

    /// The challenges of the fields that parsed and one error per malformed field, each in field order.
    public init(challenges: [AuthenticationChallenge] = [], errors: [ChallengeError] = []) {
        self.challenges = challenges
        self.errors = errors
    }

    /// Every field was malformed: there were fields, and none of them parsed.
    public var allFieldsMalformed: Bool { challenges.isEmpty && !errors.isEmpty }
}

extension AuthenticationChallenge {
    /// Parses every field named `name` on its own, keeping the challenges of the fields that
    /// parse and an error for each field that does not. Read with `fields[values: name]`, so
    /// repeated fields are all seen. Use ``parse(_:name:)`` to reject the response when any
    /// field is malformed.
    /// [RFC 9110 §11.6.1](https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1)
    public static func parseEachField(
        _ fields: HTTPFields,
        name: HTTPField.Name = .wwwAuthenticate
    ) -> ParsedChallenges {
        var parsed = ParsedChallenges()
        for (index, value) in fields[values: name].enumerated() {
            do {
                parsed.challenges += try parse(value)
            } catch let error as ChallengeError {
                parsed.errors.append(ChallengeError(error.code, "\(name.rawName) field \(index + 1): \(error.reason)"))
            } catch {
                parsed.errors.append(ChallengeError(.invalidCharacter, "\(name.rawName) field \(index + 1): \(error)"))
            }
        }
        return parsed
    }
}
