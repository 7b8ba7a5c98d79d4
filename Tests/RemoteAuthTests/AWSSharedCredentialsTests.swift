import Foundation
import RemoteAuth
import Testing

/// The AWS shared credentials file's text, read as the AWS SDKs read it.
@Suite struct AWSSharedCredentialsTests {
    static let file = """
        # comment
        [default]
        aws_access_key_id = AKIDEXAMPLE
        aws_secret_access_key = wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY
        ; another comment
        [ temporary ]
        AWS_ACCESS_KEY_ID=ASIAEXAMPLE
        aws_secret_access_key=secret=with=equals
        aws_session_token = token
        s3 =
          aws_access_key_id = NESTED
        [default]
        region = us-east-1
        [partial]
        aws_access_key_id = AKIDPARTIAL
        """

    @Test func profiles() throws {
        let fallback = try AWS.Credentials.fromSharedCredentialsFile(Self.file)
        #expect(fallback.accessKeyID == "AKIDEXAMPLE")
        #expect(fallback.secretAccessKey.reveal() == "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
        #expect(fallback.sessionToken == nil)
        // Keys without case, the name's spaces ignored, the value after the first "=", a nested
        // (indented) setting not the section's.
        let temporary = try AWS.Credentials.fromSharedCredentialsFile(Self.file, profile: "temporary")
        #expect(temporary.accessKeyID == "ASIAEXAMPLE")
        #expect(temporary.secretAccessKey.reveal() == "secret=with=equals")
        #expect(temporary.sessionToken?.reveal() == "token")
        #expect(!"\(temporary)".contains("secret=with"))
        // Windows line endings.
        let crlf = Self.file.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(
            try AWS.Credentials.fromSharedCredentialsFile(crlf, profile: "temporary").sessionToken?.reveal() == "token"
        )
    }

    @Test func refusals() {
        let missing = #expect(throws: AWS.SigV4Error.self) {
            try AWS.Credentials.fromSharedCredentialsFile(Self.file, profile: "ci", source: "'creds'")
        }
        #expect(missing?.reason == "'creds' has no profile [ci]")
        let partial = #expect(throws: AWS.SigV4Error.self) {
            try AWS.Credentials.fromSharedCredentialsFile(Self.file, profile: "partial", source: "'creds'")
        }
        #expect(
            partial?.reason == "the profile [partial] of 'creds' needs aws_access_key_id and aws_secret_access_key"
        )
        // A profile whose name is only a prefix or in the config file's form is another profile.
        #expect(throws: AWS.SigV4Error.self) {
            try AWS.Credentials.fromSharedCredentialsFile(
                "[profile default]\naws_access_key_id=a\naws_secret_access_key=b"
            )
        }
    }
}
