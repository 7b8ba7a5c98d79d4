extension AWS.Credentials {
    /// The credentials of `profile` in the text of an AWS shared credentials file
    /// (`~/.aws/credentials`, or `AWS_SHARED_CREDENTIALS_FILE`): the INI section named after
    /// the profile, with `aws_access_key_id`, `aws_secret_access_key` and, for temporary
    /// credentials, `aws_session_token`
    /// ([AWS SDKs and Tools: shared config and credentials files](https://docs.aws.amazon.com/sdkref/latest/guide/file-format.html)).
    ///
    /// Read as the AWS SDKs read it: `[name]` starts a section (spaces around the name
    /// ignored); `key = value` or `key=value`, the key without case, the value trimmed; lines
    /// starting with `#` or `;` are comments; an indented line continues a nested value and
    /// is not a setting of the section. A later setting of the same key wins. Only this text
    /// is read: this library opens no file and asks no instance metadata service.
    ///
    /// - Parameter source: names the file in errors.
    /// - Parameter text: the file's contents.
    /// - Parameter profile: the section to read.
    /// - Throws: ``AWS/SigV4Error`` (`.invalidRequest`) naming `source` and the profile when the
    ///   profile is absent or lacks the key id or the secret. The values are never in the reason.
    public static func fromSharedCredentialsFile(
        _ text: String,
        profile: String = "default",
        source: String = "the shared credentials file"
    ) throws -> AWS.Credentials {
        var settings: [String: String]?
        var section: String?
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine[...]
            // An indented line belongs to the nested value above it (an s3 = … block, say).
            if line.first == " " || line.first == "\t" { continue }
            let trimmed = line.trimmingSpaces
            if trimmed.isEmpty || trimmed.first == "#" || trimmed.first == ";" { continue }
            if trimmed.first == "[" {
                guard trimmed.last == "]" else {
                    section = nil
                    continue
                }
                section = String(trimmed.dropFirst().dropLast().trimmingSpaces)
                if section == profile, settings == nil { settings = [:] }
                continue
            }
            guard section == profile, let equals = trimmed.firstIndex(of: "=") else { continue }
            let key = trimmed[..<equals].trimmingSpaces.lowercased()
            settings?[key] = String(trimmed[trimmed.index(after: equals)...].trimmingSpaces)
        }
        guard let settings else {
            throw AWS.SigV4Error("\(source) has no profile [\(profile)]")
        }
        guard let id = settings["aws_access_key_id"], !id.isEmpty,
            let secret = settings["aws_secret_access_key"], !secret.isEmpty
        else {
            throw AWS.SigV4Error(
                "the profile [\(profile)] of \(source) needs aws_access_key_id and aws_secret_access_key"
            )
        }
        let token = settings["aws_session_token"].flatMap { $0.isEmpty ? nil : Secret($0) }
        return AWS.Credentials(accessKeyID: id, secretAccessKey: Secret(secret), sessionToken: token)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: SubSequence {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
