import Foundation
import Testing

@Suite(.timeLimit(.minutes(5))) struct SignBasicDigestCLITests {
    /// RFC 7617 §2.
    @Test func basic() async throws {
        let result = try await CLI.run(["sign", "basic", "--username", "Aladdin", "--password", "open sesame"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\n")
    }

    @Test func basicRefusesColonInUserID() async throws {
        let result = try await CLI.run(["sign", "basic", "--username", "a:b", "--password", "sekrit-value"])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("remote-auth: invalid user-id"), "\(result.stderr)")
        #expect(!result.stderr.contains("sekrit-value"))
    }

    /// RFC 7616 §3.9.1, SHA-256, byte for byte.
    @Test func digestSHA256() async throws {
        let result = try await CLI.run([
            "sign", "digest", "--username", "Mufasa", "--password", "Circle of Life", "--method", "GET", "--uri",
            "/dir/index.html",
            "--cnonce", "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", "--challenge",
            "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=SHA-256, nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\"",
        ])
        #expect(result.stderr == "")
        #expect(
            result.stdout
                == "Digest username=\"Mufasa\", realm=\"http-auth@example.org\", uri=\"/dir/index.html\", algorithm=SHA-256, nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", nc=00000001, cnonce=\"f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ\", qop=auth, response=\"753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1\", opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\"\n"
        )
    }

    /// auth-int over a body file: the `auth_int_md5_with_body` vector.
    @Test func digestAuthIntWithBodyFile() async throws {
        let body = try CLI.temporaryFile("{\"hello\":\"world\"}")
        let result = try await CLI.run([
            "sign", "digest", "--username", "Mufasa", "--password", "Circle Of Life", "--method", "POST", "--uri",
            "/dir/index.html",
            "--cnonce", "0a4f113b", "--qop", "auth-int", "--body-file", body, "--challenge",
            "Digest realm=\"testrealm@host.com\", qop=\"auth-int\", algorithm=MD5, nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", opaque=\"5ccc069c403ebaf9f0171e9517f40e41\"",
        ])
        #expect(
            result.stdout.contains("response=\"13905411d65c6e2436eaab6f87c6271c\""),
            "\(result.stdout)\(result.stderr)"
        )
    }

    @Test(arguments: [
        (["--challenge", "Digest realm=\"unterminated"], "remote-auth: malformed challenge"),
        (["--challenge", "Basic realm=\"x\""], "remote-auth: "),
        (
            ["--challenge", "Digest realm=\"r\", nonce=\"n\", qop=\"auth-int\"", "--body-file", "/nonexistent/body"],
            "remote-auth: unreadable body file"
        ),
    ])
    func digestBadInput(extra: [String], prefix: String) async throws {
        let result = try await CLI.run(
            ["sign", "digest", "--username", "u", "--password", "sekrit-value", "--uri", "/"] + extra
        )
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix(prefix), "\(result.stderr)")
        #expect(!result.stderr.contains("sekrit-value"))
    }
}
