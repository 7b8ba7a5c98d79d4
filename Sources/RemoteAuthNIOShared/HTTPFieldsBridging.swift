package import HTTPTypes
package import NIOHTTP1
import RemoteAuth

extension HTTPFields {
    /// The fields of a NIO head, in order, repeated names kept.
    ///
    /// - Throws: ``RemoteAuth/TransportError/Code/malformedResponse`` for a name that is not a
    ///   token ([RFC 9110 §5.1](https://www.rfc-editor.org/rfc/rfc9110#section-5.1)).
    package init(_ headers: HTTPHeaders) throws {
        self.init()
        reserveCapacity(headers.count)
        for header in headers {
            guard let name = HTTPField.Name(header.name) else {
                throw TransportError(.malformedResponse, "the response has an invalid field name '\(header.name)'")
            }
            append(HTTPField(name: name, value: header.value))
        }
    }
}

extension HTTPHeaders {
    /// Appends `fields` in order, one for one, repeated names kept.
    package mutating func append(_ fields: HTTPFields) {
        for field in fields { add(name: field.name.rawName, value: field.value) }
    }
}
