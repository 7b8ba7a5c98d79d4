package import HTTPTypes

extension ChallengeStateMachine {
    /// The response that ended the exchange when it is not this party's challenge: reads
    /// `Authentication-Info` after a Digest answer, checks `rspauth` when sent, takes
    /// `nextnonce`. [RFC 7616 §3.5](https://www.rfc-editor.org/rfc/rfc7616#section-3.5)
    /// An `auth-int` proof covers the response body: it is not checked when the body is not at
    /// hand (`nil`, a streamed response).
    package func completed(_ response: HTTPResponse, body: [UInt8]?) -> Completion {
        guard case .digest(let key, let answer, let entry) = sent, let value = response.headerFields[party.infoField],
            let info = try? DigestAuthenticationInfo(headerValue: value)
        else { return .none }
        if info.rspauth != nil, body != nil || answer.qop != .authInt,
            !answer.isValid(info, credentials: entry.credential.digestCredentials, responseBody: body ?? [])
        {
            let error = ClientError(
                .invalidServerProof,
                "the rspauth of \(key.origin) does not match the credential",
                response: response
            )
            return .fail(error, forgetting: key)
        }
        if let nextnonce = info.nextnonce { return .renew(key, nextnonce: nextnonce) }
        return .none
    }

    package enum Completion: Sendable {
        case none
        /// Use `nextnonce` for the space's next request.
        case renew(DigestProtectionSpaces.Key, nextnonce: String)
        case fail(ClientError, forgetting: DigestProtectionSpaces.Key)
    }
}
