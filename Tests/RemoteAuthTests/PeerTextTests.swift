import Foundation
import RemoteAuth
import Testing

/// Issue 22, item 3: what a server sends reaches the terminal escaped, and a token endpoint's
/// body excerpt never carries the tokens in it.
@Suite struct PeerTextTests {
    @Test func controlSequencesAreEscaped() {
        // CSI (clear screen), OSC (window title, ended by BEL), CR, a C1 CSI, a bidi override.
        let hostile = "bad\u{1B}[2J\u{1B}]0;pwned\u{07}\r\u{9B}31m\u{202E}txt.exe"
        #expect(
            PeerText.printable(hostile)
                == #"bad\u{1b}[2J\u{1b}]0;pwned\u{7}\u{d}\u{9b}31m\u{202e}txt.exe"#
        )
        #expect(PeerText.printable("naïve ünïcode, 日本") == "naïve ünïcode, 日本")
        // A backslash in the text cannot fake an escape.
        #expect(PeerText.printable(#"\u{1b}"#) == #"\\u{1b}"#)
        #expect(PeerText.printable("line\nnext\ttab") == #"line\u{a}next\u{9}tab"#)
        #expect(PeerText.printable(String(repeating: "a", count: 10), limit: 5) == "aaaa…")
    }

    /// An almost-JSON token response: the fresh tokens must not appear in the error.
    @Test func anAlmostJSONTokenResponseKeepsItsTokensOut() throws {
        let body =
            #"{"access_token":"AT-SECRET-1","token_type":"Bearer","refresh_token" : "RT-SECRET-2","id_token":"eyJ.x.y"} trailing"#
        let thrown = #expect(throws: OAuth2.Error.self) {
            try OAuth2.TokenResponse.parse(status: 200, body: Array(body.utf8), now: 0)
        }
        #expect(thrown?.code == .malformedResponse)
        #expect(
            thrown?.reason
                == #"HTTP 200: the body is not a JSON object: '{"access_token":"<redacted>","token_type":"Bearer","refresh_token" : "<redacted>","id_token":"<redacted>"} trailing'"#
        )
    }

    @Test(arguments: [
        // An escaped quote inside the value, an unterminated value, a bare value, a form body.
        (#"{"access_token":"a\"b","x":1,"#, #"'{"access_token":"<redacted>","x":1,'"#),
        (#"{"refresh_token":"unterminated"#, #"'{"refresh_token":"<redacted>"'"#),
        (#"{"device_code":12345,"user_code":"WDJB-MJHT"]"#, #"'{"device_code":<redacted>,"user_code":"WDJB-MJHT"]'"#),
        (
            "access_token=AT1&token_type=bearer&refresh_token=RT2",
            "'access_token=<redacted>&token_type=bearer&refresh_token=<redacted>'"
        ),
        ("<html>\u{1B}]0;title\u{07}</html>", #"'<html>\u{1b}]0;title\u{7}</html>'"#),
    ])
    func secretMembersAreBlankedWhateverTheBody(_ body: String, _ excerpt: String) throws {
        let thrown = #expect(throws: OAuth2.Error.self) {
            try OAuth2.TokenResponse.parse(status: 200, body: Array(body.utf8), now: 0)
        }
        #expect(thrown?.reason == "HTTP 200: the body is not a JSON object: " + excerpt)
    }

    /// A server's `error` code with control characters is escaped in the reason.
    @Test func anErrorCodeWithControlsIsEscaped() throws {
        let body = Array(#"{"error":"invalid_grant\u001b[2J"}"#.utf8)
        let thrown = #expect(throws: OAuth2.Error.self) {
            try OAuth2.TokenResponse.parse(status: 400, body: body, now: 0)
        }
        #expect(thrown?.reason == #"the server answered invalid_grant\u{1b}[2J"#)
    }
}
