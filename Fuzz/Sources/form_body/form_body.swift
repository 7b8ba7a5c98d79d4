import FuzzSupport
import RemoteAuth

/// `application/x-www-form-urlencoded` bodies and queries (the WHATWG URL Standard's
/// application/x-www-form-urlencoded parser, as RFC 6749 Appendix B and RFC 5849 §3.4.1.3.1
/// use it), and OAuth 1.0a's own percent-encoding (RFC 5849 §3.6).
///
/// Invariants: decode → encode → decode gives the same pairs, in order; no more pairs than
/// bytes + 1; RFC 5849 §3.6 encoding of decoded text decodes back to it.
@main struct Target {
    static func main() {
        Fuzz.run { input in
            if let pairs = try? FormURLEncoding.decode(bytes: input.bytes) {
                Fuzz.require(pairs.count <= input.bytes.count + 1, "more pairs than bytes")
                let encoded = FormURLEncoding.encode(pairs)
                let again = try? FormURLEncoding.decode(encoded)
                Fuzz.require(again != nil, "the encoding of decoded pairs does not decode")
                if let again {
                    Fuzz.require(
                        again.map(\.name) == pairs.map(\.name) && again.map(\.value) == pairs.map(\.value),
                        "decode(encode(pairs)) is not pairs"
                    )
                }
                if let first = pairs.first {
                    let value = try? FormURLEncoding.firstValue(named: first.name, in: encoded)
                    Fuzz.require(value == first.value, "firstValue is not the first pair's value")
                }
            }
            if let decoded = try? OAuth1.PercentEncoding.decode(input.text) {
                let back = try? OAuth1.PercentEncoding.decode(OAuth1.PercentEncoding.encode(decoded))
                Fuzz.require(back == decoded, "RFC 5849 §3.6 percent-encoding does not round-trip")
            }
        }
    }
}
