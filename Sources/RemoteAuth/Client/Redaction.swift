public import HTTPTypes

/// What may be logged of a request or response: field values that carry credentials
/// (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, a DPoP proof) keep only
/// their scheme, and URL query parameters whose names suggest a secret lose their values.
public enum Redaction {
    /// The fields redacted by ``redacted(_:)``; `DPoP` is the proof of possession of
    /// [RFC 9449 §4](https://www.rfc-editor.org/rfc/rfc9449#section-4), which a reader of the
    /// log could replay within its lifetime.
    public static let sensitiveFields: [HTTPField.Name] = [
        .authorization, .proxyAuthorization, .cookie, .setCookie, dpop,
    ]

    static let dpop = HTTPField.Name("DPoP")!

    /// Query parameter names whose values are hidden (matched as substrings, case-insensitively).
    static let sensitiveQueryWords = ["token", "secret", "password", "passwd", "key", "signature", "code", "session"]

    /// `Name: value` lines, in order, with sensitive values redacted. An `Authorization` or
    /// `Proxy-Authorization` value keeps its scheme (`Basic <redacted>`), a cookie becomes
    /// `<redacted>`.
    public static func redacted(_ fields: HTTPFields) -> [String] {
        redacted(fields, also: [])
    }

    /// ``redacted(_:)``, also hiding the values of `names`: the fields the client's
    /// authenticators write (``RequestAuthenticator/writtenFields``).
    public static func redacted(_ fields: HTTPFields, also names: [HTTPField.Name]) -> [String] {
        fields.map { field in field.name.rawName + ": " + redactedValue(field, also: names) }
    }

    /// The value of `field`, redacted when it is sensitive (or one of `names`).
    public static func redactedValue(_ field: HTTPField, also names: [HTTPField.Name] = []) -> String {
        guard sensitiveFields.contains(field.name) || names.contains(field.name) else { return field.value }
        if field.name == .authorization || field.name == .proxyAuthorization,
            let space = field.value.firstIndex(of: " ")
        {
            return String(field.value[..<space]) + " <redacted>"
        }
        return "<redacted>"
    }

    /// `url` with the values of query parameters such as `access_token` or `password` hidden.
    public static func redactedURL(_ url: String) -> String {
        guard let mark = url.firstIndex(of: "?") else { return url }
        let query = url[url.index(after: mark)...]
        let parts = query.split(separator: "&", omittingEmptySubsequences: false).map { part -> String in
            guard let equals = part.firstIndex(of: "=") else { return String(part) }
            let name = part[..<equals].lowercased()
            guard sensitiveQueryWords.contains(where: { name.contains($0) }) else { return String(part) }
            return String(part[..<equals]) + "=<redacted>"
        }
        return String(url[...mark]) + parts.joined(separator: "&")
    }
}
