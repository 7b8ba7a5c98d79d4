import HTTPTypes
import RemoteAuth
import Testing

/// PLAINTEXT signs no base string, so the vector file's base-string checks say nothing about it:
/// these assert the values RFC 5849 prints.
@Suite struct PlaintextSignatureTests {
    /// [RFC 5849 §3.4.4](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.4): client secret
    /// `djr9rjt0jd78jf88`, token secret `jjd99$tj88uiths3` give
    /// `oauth_signature="djr9rjt0jd78jf88%26jjd99%2524tj88uiths3"` (each secret encoded, joined by
    /// `&`, and the whole encoded again as a header parameter).
    @Test func rfc5849Section344() throws {
        let signer = try OAuth1.Signer(
            client: .init(key: "dpf43f3p2l4k3l03", secret: "djr9rjt0jd78jf88"),
            token: .init(token: "hh5s93j4hdidpola", secret: "jjd99$tj88uiths3"),
            signatureMethod: .plaintext
        )
        let request = try HTTPRequest(method: .get, absoluteURL: "https://photos.example.net/photos")
        let signed = try signer.sign(request, nonce: nil, timestamp: nil)
        #expect(signed.signature == "djr9rjt0jd78jf88&jjd99%24tj88uiths3")
        #expect(signed.signatureBaseString == nil)
        #expect(signed.authorization.contains("oauth_signature=\"djr9rjt0jd78jf88%26jjd99%2524tj88uiths3\""))

        let received = try OAuth1.ReceivedRequest(signed.request)
        #expect(received.signature == "djr9rjt0jd78jf88&jjd99%24tj88uiths3")
        try received.verify(clientSecret: "djr9rjt0jd78jf88", tokenSecret: "jjd99$tj88uiths3")
        #expect(throws: OAuth1Error(.invalidSignature, "")) {
            try received.verify(clientSecret: "djr9rjt0jd78jf88", tokenSecret: "jjd99$tj88uiths4")
        }
        #expect(throws: OAuth1Error(.invalidSignature, "")) {
            try received.verify(clientSecret: "djr9rjt0jd78jf89", tokenSecret: "jjd99$tj88uiths3")
        }
    }

    /// [RFC 5849 §2.1](https://www.rfc-editor.org/rfc/rfc5849#section-2.1): no token yet, so the
    /// token secret is empty and the signature ends in `&` (`oauth_signature="ja893SD9%26"`).
    @Test func rfc5849Section21() throws {
        let signer = try OAuth1.Signer(
            client: .init(key: "jd83jd92dhsh93js", secret: "ja893SD9"),
            signatureMethod: .plaintext
        )
        let request = try HTTPRequest(
            method: .post,
            absoluteURL: "https://server.example.com/request_temp_credentials"
        )
        let signed = try signer.sign(request, nonce: nil, timestamp: nil)
        #expect(signed.signature == "ja893SD9&")
        #expect(signed.authorization.contains("oauth_signature=\"ja893SD9%26\""))
    }
}
