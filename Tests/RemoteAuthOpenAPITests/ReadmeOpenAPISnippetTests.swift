import Foundation
import HTTPTypes
import OpenAPIAsyncHTTPClient
import RemoteAuth
import RemoteAuthOpenAPI
import RemoteAuthSandbox
import RemoteAuthURLSession
import Testing

/// The README's generated-client snippet ("In a generated OpenAPI client"), compiled here with
/// its origins as parameters (the README writes `https://auth.example.com` and
/// `https://api.example.com`) and run against the sandbox. This file imports neither
/// RemoteAuthAsyncHTTPClient nor OpenAPIURLSession, as the snippet does not: each declares a
/// transport of the same name as the snippet's other one.
// The snippet's lines are the README's, as written there.
// swift-format-ignore
private func readmeOpenAPISnippet(issuer: String, api: String, secret: Secret) async throws
    -> [Components.Schemas.Status]
{
    // readme-snippet: openapi-middleware begin
    let timeline = try await URLSessionTransport.withTransport { transport in   // RemoteAuth's, for the token endpoint
        let flow = try await OAuth2.Flow(discovering: "\(issuer)", client: .init(id: "demo-service",
                                         authentication: .clientSecretBasic(secret)), transport: transport)
        let session = try await flow.clientCredentialsSession(scope: ["statuses:read"], resources: ["\(api)"])
        let client = Client(serverURL: URL(string: "\(api)")!, transport: AsyncHTTPClientTransport(),  // the generated Client
                            middlewares: [AuthenticationMiddleware(session: session)])
        return try await client.getHomeTimeline(query: .init(count: 20)).ok.body.json }
    // readme-snippet: openapi-middleware end
    return timeline
}

@Suite(.timeLimit(.minutes(5))) struct ReadmeOpenAPISnippetTests {
    @Test func snippetCallsTheTimelineThroughTheMiddleware() async throws {
        try await Sandbox.withSandbox { sandbox in
            // One status in the timeline, posted with OAuth 1.0a through the same generated client.
            let posted = try await OpenAPITransport.urlSession.withClient(
                serverURL: sandbox.baseURL,
                middlewares: [try StatusAPITests.oauth1(sandbox.baseURL)]
            ) { client in
                try await client.updateStatus(body: .urlEncodedForm(.init(status: "seen by the snippet"))).ok.body.json
            }
            let timeline = try await readmeOpenAPISnippet(
                issuer: sandbox.baseURL,
                api: sandbox.baseURL,
                secret: "demo-service-secret"
            )
            #expect(timeline == [posted])
            #expect(timeline.first?.user.screenName == "alice")
        }
    }

    /// The README's block is the imports above and the lines between the markers, with the
    /// README's origins: the two cannot drift.
    @Test func readmeHoldsTheSnippet() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = "<!-- readme-snippet: openapi-middleware "
        let afterMarker = try #require(readme.range(of: marker)).upperBound
        let open = try #require(readme.range(of: "```swift\n", range: afterMarker..<readme.endIndex))
        let close = try #require(readme.range(of: "\n```", range: open.upperBound..<readme.endIndex))
        let block = readme[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
        let imports = [
            "import Foundation", "import OpenAPIAsyncHTTPClient", "import RemoteAuth", "import RemoteAuthOpenAPI",
            "import RemoteAuthURLSession",
        ]
        #expect(Array(block.prefix(imports.count)) == imports)
        #expect(block.count <= 13, "the snippet is \(block.count) lines, imports included")

        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let begin = try #require(source.range(of: "// readme-snippet: openapi-middleware begin\n")).upperBound
        let end = try #require(source.range(of: "    // readme-snippet: openapi-middleware end")).lowerBound
        let compiled = source[begin..<end].split(separator: "\n").map {
            String($0.dropFirst(4)).replacingOccurrences(of: #"\(api)"#, with: "https://api.example.com")
                .replacingOccurrences(of: #"\(issuer)"#, with: "https://auth.example.com")
        }
        #expect(Array(block.dropFirst(imports.count)) == compiled)
    }
}

/// What the sandbox serves at `GET /openapi.json` is the document the client was generated
/// from, byte for byte (scripts/generate-openapi-client.sh copies it from StatusAPIDocument.swift).
@Suite(.timeLimit(.minutes(5))) struct ServedDocumentTests {
    @Test func servedDocumentIsTheGeneratorsInput() async throws {
        let committed = try Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("Generated/openapi.json")
        )
        try await Sandbox.withSandbox { sandbox in
            try await URLSessionTransport.withTransport { transport in
                let (response, body) = try await transport.send(
                    try HTTPRequest(method: .get, absoluteURL: sandbox.baseURL + "/openapi.json"),
                    body: nil
                )
                #expect(response.status == .ok)
                #expect(response.headerFields[.contentType] == "application/json")
                #expect(Data(body) == committed)
                let document = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
                #expect(document?["openapi"] as? String == "3.1.0")
                let paths = (document?["paths"] as? [String: Any])?.keys.sorted()
                #expect(
                    paths == [
                        "/1.1", "/1.1/account/verify_credentials.json", "/1.1/statuses/home_timeline.json",
                        "/1.1/statuses/update.json", "/basic/", "/digest/{algorithm}/{qop}/",
                    ]
                )
            }
        }
    }
}
