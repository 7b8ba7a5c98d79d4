package import HTTPTypes

extension ChallengeStateMachine {
    /// Who challenges, and in which fields.
    package struct Party: Sendable {
        package let scope: AuthScope
        /// How errors and logs name the party.
        package let name: String
        package let status: HTTPResponse.Status
        package let challengeField: HTTPField.Name
        package let authorizationField: HTTPField.Name
        package let infoField: HTTPField.Name

        package static func origin(_ scope: AuthScope) -> Party {
            Party(
                scope: scope.origin,
                name: "\(scope.origin)",
                status: .unauthorized,
                challengeField: .wwwAuthenticate,
                authorizationField: .authorization,
                infoField: .authenticationInfo
            )
        }

        package static func proxy(_ scope: AuthScope) -> Party {
            Party(
                scope: scope.origin,
                name: "the proxy \(scope.origin)",
                status: .proxyAuthenticationRequired,
                challengeField: .proxyAuthenticate,
                authorizationField: .proxyAuthorization,
                infoField: proxyAuthenticationInfo
            )
        }

        package static let proxyAuthenticationInfo = HTTPField.Name("Proxy-Authentication-Info")!
    }
}
