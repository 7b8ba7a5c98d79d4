import Foundation
import Testing

/// --proxy, --proxy-user, --noproxy and curl's proxy environment variables, with the echo server
/// as the proxy: AsyncHTTPClient tunnels every request with CONNECT.
@Suite(.timeLimit(.minutes(5))) struct ProxyCLITests {
    /// The CONNECT head the proxy received, and the tunnelled GET.
    func tunnelled(_ host: String, connect fields: [String] = []) -> String {
        "CONNECT \(host):80 HTTP/1.1\r\nhost: \(host)\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n"
            + "GET /x?y=1 HTTP/1.1\r\nUser-Agent: remote-auth/0.1.0\r\nAccept: */*\r\nhost: \(host)\r\n\r\n"
    }

    @Test func proxyFromOptionAndEnvironment() async throws {
        try await withEchoServer { proxy in
            let target = "http://example.invalid/x?y=1"
            let option = try await CLI.run(["request", "--proxy", "127.0.0.1:\(proxy.port)", target])
            #expect(option.status == 0, "\(option.stderr)")
            #expect(option.stderr == "")
            #expect(option.stdout == tunnelled("example.invalid"))

            let environment = try await CLI.run(["request", target], environment: ["http_proxy": proxy.base])
            #expect(environment.status == 0)
            #expect(environment.stdout == tunnelled("example.invalid"))

            // NO_PROXY and --noproxy go direct (and example.invalid does not resolve).
            for (arguments, variables) in [
                ([String](), ["http_proxy": proxy.base, "NO_PROXY": "localhost,.invalid"]),
                (["--noproxy", "example.invalid"], ["http_proxy": proxy.base]),
                (["--proxy", ""], ["http_proxy": proxy.base]),
            ] {
                let direct = try await CLI.run(["request"] + arguments + [target], environment: variables)
                #expect(direct.status == 6, "\(arguments) \(variables)")
            }

            // HTTP_PROXY in capitals is not read for http, as curl does not read it.
            let capitals = try await CLI.run(
                ["request", target],
                environment: ["HTTP_PROXY": proxy.base, "http_proxy": ""]
            )
            #expect(capitals.status == 6)
        }
    }

    @Test func proxyCredential() async throws {
        try await withEchoServer(proxyCredential: "pat:proxy-pw") { proxy in
            let target = "http://example.invalid/x?y=1"
            let refused = try await CLI.run(["request", "-x", proxy.base, target])
            #expect(refused.status == 56)
            #expect(refused.stdout == "")
            #expect(
                refused.stderr
                    == "remote-auth: request failed: the proxy refused the tunnel without a credential (407): pass --proxy-user USER:PASSWORD\n"
            )
            let accepted = try await CLI.run(["request", "-x", proxy.base, "--proxy-user", "pat:proxy-pw", target])
            #expect(accepted.status == 0, "\(accepted.stderr)")
            #expect(
                accepted.stdout
                    == tunnelled("example.invalid", connect: ["proxy-authorization: Basic cGF0OnByb3h5LXB3"])
            )
            let fromEnvironment = try await CLI.run(
                ["request", "-x", proxy.base, "-U", "pat", target],
                environment: ["REMOTE_AUTH_PROXY_PASSWORD": "proxy-pw"]
            )
            #expect(fromEnvironment.status == 0)
        }
    }

    @Test func badProxyInput() async throws {
        let cases: [([String], [String: String], String)] = [
            (
                ["--proxy", "socks5://127.0.0.1:1"], [:],
                "remote-auth: --proxy: a socks5:// proxy is not supported, only http:// (an https URL still goes through it encrypted, with CONNECT)\n"
            ),
            (["--proxy", "127.0.0.1:x"], [:], "remote-auth: invalid --proxy: expected [http://]HOST[:PORT]\n"),
            (
                ["-k", "--proxy", "127.0.0.1:1"], [:],
                "remote-auth: the proxy http://127.0.0.1:1 does not go with --cacert, --pin, --cert or -k: the transport that checks them inside the TLS handshake does not speak to proxies; use --noproxy HOST (or NO_PROXY) to go direct\n"
            ),
            (
                ["--proxy-user", "u:p"], ["http_proxy": ""],
                "remote-auth: --proxy-user needs a proxy: --proxy, or https_proxy/http_proxy for this URL\n"
            ),
        ]
        for (arguments, environment, message) in cases {
            let result = try await CLI.run(["request"] + arguments + ["http://127.0.0.1:1/"], environment: environment)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stdout == "")
            #expect(result.stderr.hasPrefix(message.replacingOccurrences(of: "\n", with: "")), "\(result.stderr)")
        }
    }
}
