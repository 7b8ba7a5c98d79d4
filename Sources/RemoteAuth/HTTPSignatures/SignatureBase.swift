public import HTTPTypes
import RawStructuredFieldValues

extension HTTPMessageSignatures {
    /// The message a signature covers: a request, or a response with (for `req` components,
    /// [RFC 9421 §2.4](https://www.rfc-editor.org/rfc/rfc9421#section-2.4)) the request it
    /// answers. Trailer fields are given apart, since `HTTPRequest` and `HTTPResponse` hold
    /// only the header section; without them a `tr` component fails with
    /// ``Error/Code/trailersUnavailable`` (§2.1.4).
    public struct Message: Sendable {
        /// The head of a request or response.
        public enum Head: Sendable {
            /// A request's head.
            case request(HTTPRequest)
            /// A response's head.
            case response(HTTPResponse)
        }

        /// The head of the message: a request or a response.
        public var head: Head
        /// The message's trailer section, when known.
        public var trailerFields: HTTPFields?
        /// For a response: the request it answers (`req`, §2.4).
        public var request: HTTPRequest?
        /// For a response: the trailer section of the request it answers.
        public var requestTrailerFields: HTTPFields?

        /// A request message.
        public static func request(_ request: HTTPRequest, trailerFields: HTTPFields? = nil) -> Message {
            Message(head: .request(request), trailerFields: trailerFields, request: nil, requestTrailerFields: nil)
        }

        /// A response message, with the request it answers when `req` components are covered.
        public static func response(
            _ response: HTTPResponse,
            for request: HTTPRequest? = nil,
            trailerFields: HTTPFields? = nil,
            requestTrailerFields: HTTPFields? = nil
        ) -> Message {
            Message(
                head: .response(response),
                trailerFields: trailerFields,
                request: request,
                requestTrailerFields: requestTrailerFields
            )
        }

        /// The header fields of the message.
        public var headerFields: HTTPFields {
            switch head {
            case .request(let request): request.headerFields
            case .response(let response): response.headerFields
            }
        }
    }

    /// The signature base of `input` over `message`: one line per covered component,
    /// `"name";params: value`, then `"@signature-params": (…);params`, lines joined with LF and
    /// no LF at the end. [RFC 9421 §2.5](https://www.rfc-editor.org/rfc/rfc9421#section-2.5)
    ///
    /// - Throws: ``Error`` naming the §2.5 rule that fails: ``Error/Code/duplicateComponent``,
    ///   ``Error/Code/missingComponent``, ``Error/Code/invalidComponent``,
    ///   ``Error/Code/componentNotApplicable``, ``Error/Code/invalidStructuredField``,
    ///   ``Error/Code/trailersUnavailable``.
    public static func signatureBase(for message: Message, input: SignatureInput) throws -> String {
        String(decoding: try signatureBase(for: message, input: input, serializedComponents: nil).base, as: UTF8.self)
    }

    /// The signature base's bytes (as signed), and the serialized signature parameters (its last
    /// line's value, and the signature's member of `Signature-Input`), with the components'
    /// identifiers already serialized when `serializedComponents` holds them (a signer's,
    /// serialized once), and the last `tail.count` parameters too when `tail` is given.
    static func signatureBase(
        for message: Message,
        input: SignatureInput,
        serializedComponents: [String]?,
        tail: (count: Int, text: String)? = nil
    ) throws -> (base: [UInt8], parameters: String) {
        var base: [UInt8] = []
        base.reserveCapacity(256)
        let components = input.components
        // A hostile Signature-Input may list many components: a set beyond a few.
        var seen = components.count > 16 ? Set<ComponentIdentifier>() : nil
        // 1. Each covered component, in order.
        for index in components.indices {
            let component = components[index]
            // 2.1 An identifier covered twice is an error.
            let repeated =
                seen == nil ? components[..<index].contains(component) : !seen!.insert(component).inserted
            guard !repeated else {
                throw Error(.duplicateComponent, "\(component) is covered twice (RFC 9421 §2.5)")
            }
            // 2.2–2.5 The serialized identifier, ": ", the component value, LF.
            let value = try componentValue(component, of: message)
            base.appendUTF8(try serializedComponents?[index] ?? component.serialized())
            base.append(UInt8(ascii: ":"))
            base.append(UInt8(ascii: " "))
            base.appendUTF8(value)
            base.append(0x0A)
        }
        // 3. The signature parameters line, with no LF after it.
        let parameters = try serializedComponents.map { try input.serialized(components: $0, tail: tail) } ?? input.serialized()
        base.appendUTF8("\"@signature-params\": ")
        base.appendUTF8(parameters)
        return (base, parameters)
    }

    /// The value of one component of `message`
    /// ([RFC 9421 §2.1](https://www.rfc-editor.org/rfc/rfc9421#section-2.1) for fields,
    /// [§2.2](https://www.rfc-editor.org/rfc/rfc9421#section-2.2) for derived components).
    static func componentValue(_ component: ComponentIdentifier, of message: Message) throws -> String {
        // §2.4: `req` reads the component from the request a response answers.
        var head = message.head
        var trailers = message.trailerFields
        if component.isRequestBound {
            guard case .response = message.head else {
                throw Error(.componentNotApplicable, "\(component): 'req' applies to a response only (RFC 9421 §2.4)")
            }
            guard let request = message.request else {
                throw Error(.componentNotApplicable, "\(component): no request is at hand for 'req' (RFC 9421 §2.4)")
            }
            head = .request(request)
            trailers = message.requestTrailerFields
        }
        if component.isDerived {
            return try derivedValue(component, head: head)
        }
        return try fieldValue(component, head: head, trailers: trailers)
    }

    // MARK: - HTTP fields (§2.1)

    /// Structured field types of the fields this library knows (`sf` needs the type, §2.1.1).
    static let structuredFieldTypes: [String: StructuredFields.TopLevel] = [
        "signature-input": .dictionary, "signature": .dictionary, "accept-signature": .dictionary,
        "content-digest": .dictionary, "repr-digest": .dictionary, "want-content-digest": .dictionary,
        "want-repr-digest": .dictionary, "priority": .dictionary, "cache-status": .list, "proxy-status": .list,
        "client-cert": .item, "client-cert-chain": .list, "cdn-cache-control": .dictionary,
        "example-dict": .dictionary,
    ]

    static func fieldValue(_ component: ComponentIdentifier, head: Message.Head, trailers: HTTPFields?) throws -> String
    {
        var structured = false
        var key: String?
        var byteSequence = false
        for parameter in component.parameters {
            switch parameter {
            case .structuredField: structured = true
            case .key(let member): key = member
            case .byteSequence: byteSequence = true
            case .request, .trailer: break
            case .name:
                throw Error(.invalidComponent, "\(component): 'name' belongs to @query-param only (RFC 9421 §2.2.8)")
            }
        }
        // §2.1.3: `bs` wraps the raw lines; it cannot be combined with a structured reading.
        if byteSequence && (structured || key != nil) {
            throw Error(.invalidComponent, "\(component): 'bs' cannot be combined with 'sf' or 'key' (RFC 9421 §2.1.3)")
        }
        if component.parameters.isEmpty, let value = singleUntrimmedLine(component.name, head: head) { return value }
        guard let name = HTTPField.Name(component.name) else {
            throw Error(.invalidComponent, "\"\(component.name)\" is not a field name")
        }
        let fields: HTTPFields
        if component.isTrailer {
            // §2.1.4: the field from the trailer section, which must be at hand.
            guard let trailers else {
                throw Error(
                    .trailersUnavailable,
                    "\(component): the message's trailer section is not at hand (RFC 9421 §2.1.4)"
                )
            }
            fields = trailers
        } else {
            switch head {
            case .request(let request): fields = request.headerFields
            case .response(let response): fields = response.headerFields
            }
        }
        // §2.1: each field line's value, leading and trailing white space removed.
        let lines = fields[values: name].map { trimmed($0) }
        guard !lines.isEmpty else {
            throw Error(.missingComponent, "\(component): the message has no \(component.name) field (RFC 9421 §2.5)")
        }
        if byteSequence {
            // §2.1.3: each line as a byte sequence, joined with ", ".
            return lines.map { ":" + RemoteAuthBase64.encode(Array($0.utf8)) + ":" }.joined(separator: ", ")
        }
        // §2.1: the lines joined with ", ".
        let combined = lines.joined(separator: ", ")
        if let key {
            // §2.1.2: one member of a dictionary field, serialized on its own.
            let dictionary: StructuredFields.Dictionary
            do { dictionary = try StructuredFields.parseDictionary(combined) } catch {
                throw Error(.invalidStructuredField, "\(component): the field is not a dictionary (RFC 9421 §2.1.2)")
            }
            guard let member = dictionary[key] else {
                throw Error(.missingComponent, "\(component): the dictionary has no member '\(key)' (RFC 9421 §2.1.2)")
            }
            do { return try StructuredFields.serialize(member: member) } catch {
                throw Error(.invalidStructuredField, "\(component): the member cannot be serialized")
            }
        }
        if structured {
            // §2.1.1: the value parsed as its structured type and serialized again.
            guard let type = structuredFieldTypes[component.name] else {
                throw Error(
                    .invalidStructuredField,
                    "\(component): the structured type of \(component.name) is not known (RFC 9421 §2.1.1)"
                )
            }
            do { return try StructuredFields.reserialize(combined, as: type) } catch {
                throw Error(.invalidStructuredField, "\(component): the field does not parse as a structured \(type)")
            }
        }
        return combined
    }

    /// The value of the header section's one field line named `name` (lowercase) when it is
    /// the component value as it is: a single line with nothing for §2.1 steps 1–2 to replace
    /// or trim. `nil` otherwise (no line, several, or one to clean), for ``fieldValue(_:head:trailers:)``.
    /// A field's canonical name is a valid lowercase token, so a match means `name` is one too.
    static func singleUntrimmedLine(_ name: String, head: Message.Head) -> String? {
        let fields: HTTPFields
        switch head {
        case .request(let request): fields = request.headerFields
        case .response(let response): fields = response.headerFields
        }
        var found: String?
        for field in fields where field.name.canonicalName == name {
            guard found == nil else { return nil }
            found = field.value
        }
        guard let value = found else { return nil }
        let clean: Bool? = value.utf8.withContiguousStorageIfAvailable { octets in
            guard let first = octets.first, let last = octets.last else { return true }
            func isSpace(_ octet: UInt8) -> Bool { octet == 0x20 || octet == 0x09 }
            return !isSpace(first) && !isSpace(last) && !octets.contains { $0 == 0x0D || $0 == 0x0A }
        }
        return clean == true ? value : nil
    }

    /// `value` without leading and trailing spaces and tabs, obsolete line folding replaced by
    /// a space (§2.1 steps 1–2).
    static func trimmed(_ value: String) -> String {
        var octets = Array(value.utf8)
        for index in octets.indices where octets[index] == 0x0D || octets[index] == 0x0A { octets[index] = 0x20 }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = octets.firstIndex(where: { !isSpace($0) }),
            let last = octets.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(decoding: octets[first...last], as: UTF8.self)
    }

    // MARK: - Derived components (§2.2)

    static func derivedValue(_ component: ComponentIdentifier, head: Message.Head) throws -> String {
        // Derived components take no field parameters; `name` only on @query-param.
        for parameter in component.parameters {
            switch parameter {
            case .request: continue
            case .name where component.name == "@query-param": continue
            default:
                throw Error(
                    .invalidComponent,
                    "\(component): '\(parameter.sfName)' does not apply to a derived component (RFC 9421 §2.2)"
                )
            }
        }
        if component.name == "@status" {
            // §2.2.9: responses only.
            guard case .response(let response) = head else {
                throw Error(.componentNotApplicable, "@status belongs to responses only (RFC 9421 §2.2.9)")
            }
            let code = response.status.code
            return code < 100 ? String(repeating: "0", count: code < 10 ? 2 : 1) + String(code) : String(code)
        }
        guard case .request(let request) = head else {
            throw Error(
                .componentNotApplicable,
                "\(component.name) belongs to requests; a response covers it with 'req' (RFC 9421 §2.2, §2.4)"
            )
        }
        let target = request.path ?? ""
        let split = RequestTarget(target)
        switch component.name {
        case "@method":
            // §2.2.1: the method as sent (case-sensitive).
            return request.method.rawValue
        case "@target-uri":
            // §2.2.2: the absolute target URI.
            guard let scheme = request.scheme, let authority = request.authority else {
                throw Error(.missingComponent, "@target-uri needs the request's scheme and authority (RFC 9421 §2.2.2)")
            }
            return "\(scheme)://\(authority)\(request.method == .connect ? "" : target)"
        case "@authority":
            // §2.2.3: the authority, host lowercased, the scheme's default port removed.
            guard let authority = request.authority else {
                throw Error(.missingComponent, "the request has no authority (RFC 9421 §2.2.3)")
            }
            return normalizedAuthority(authority, scheme: request.scheme)
        case "@scheme":
            // §2.2.4: the scheme, lowercase.
            guard let scheme = request.scheme else {
                throw Error(.missingComponent, "the request has no scheme (RFC 9421 §2.2.4)")
            }
            return scheme.lowercased()
        case "@request-target":
            // §2.2.5: the request target as on an HTTP/1.1 request line.
            if request.method == .connect, let authority = request.authority { return authority }
            guard request.path != nil else {
                throw Error(.missingComponent, "the request has no target (RFC 9421 §2.2.5)")
            }
            return target
        case "@path":
            // §2.2.6: the absolute path, without the query; empty is "/".
            return split.path.isEmpty ? "/" : String(split.path)
        case "@query":
            // §2.2.7: the query with its leading "?"; an absent query is "?" alone.
            return "?" + (split.query ?? "")
        case "@query-param":
            return try queryParameterValue(
                component,
                query: String(split.query ?? "")
            )
        case "@signature-params":
            throw Error(.invalidComponent, "@signature-params cannot be a covered component (RFC 9421 §2.3)")
        default:
            throw Error(.invalidComponent, "\(component.name) is not a derived component of RFC 9421 §2.2")
        }
    }

    /// §2.2.3: a lowercase host, and no port when it is the scheme's default.
    static func normalizedAuthority(_ authority: String, scheme: String?) -> String {
        let lowered = authority.lowercased()
        let defaultPort: String? =
            switch scheme?.lowercased() {
            case "https": ":443"
            case "http": ":80"
            default: nil
            }
        if let defaultPort, lowered.hasSuffix(defaultPort) { return String(lowered.dropLast(defaultPort.count)) }
        return lowered
    }

    /// §2.2.8: the query parsed as `application/x-www-form-urlencoded`; each name and value
    /// percent-encoded again with that format's percent-encode set (a space as `%20`); the
    /// value of the one parameter whose encoded name is `name`.
    static func queryParameterValue(_ component: ComponentIdentifier, query: String) throws -> String {
        let names = component.parameters.compactMap { parameter -> String? in
            if case .name(let name) = parameter { return name }
            return nil
        }
        guard names.count == 1, let name = names.first else {
            throw Error(.invalidComponent, "@query-param needs one 'name' parameter (RFC 9421 §2.2.8)")
        }
        let pairs: [(name: String, value: String)]
        do { pairs = try FormURLEncoding.decode(query) } catch {
            throw Error(.invalidComponent, "the query is not application/x-www-form-urlencoded (RFC 9421 §2.2.8)")
        }
        let values = pairs.filter { queryEncode($0.name) == name }.map { queryEncode($0.value) }
        guard let value = values.first else {
            throw Error(.missingComponent, "the query has no parameter named '\(name)' (RFC 9421 §2.2.8)")
        }
        guard values.count == 1 else {
            throw Error(.invalidComponent, "the query parameter '\(name)' occurs more than once (RFC 9421 §2.2.8)")
        }
        return value
    }

    /// The WHATWG `application/x-www-form-urlencoded` percent-encode set, space as `%20`: every
    /// octet but ASCII letters, digits, `*`, `-`, `.` and `_` is `%XX` (RFC 9421 §2.2.8).
    static func queryEncode(_ text: String) -> String {
        var output: [UInt8] = []
        for octet in text.utf8 {
            switch octet {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"):
                output.append(octet)
            default:
                output.append(UInt8(ascii: "%"))
                output.append(Hex.digit(octet >> 4, uppercase: true))
                output.append(Hex.digit(octet & 0x0F, uppercase: true))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
