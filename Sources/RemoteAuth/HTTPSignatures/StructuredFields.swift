import RawStructuredFieldValues

/// The structured field codec of this folder (RFC 8941, as updated by RFC 9651): a thin layer
/// over swift-http-structured-headers that reads and writes `String`s.
enum StructuredFields {
    typealias Dictionary = OrderedMap<String, ItemOrInnerList>

    /// The three top-level types of [RFC 8941 §3](https://www.rfc-editor.org/rfc/rfc8941#section-3).
    enum TopLevel: Sendable, Hashable {
        case list, dictionary, item
    }

    /// The parameters of an inner list or item, in order (a key given again keeps its first
    /// place and takes the later value, as the map does).
    static func parameters(_ pairs: [(String, RFC9651BareItem)]) -> OrderedMap<String, RFC9651BareItem> {
        var map = OrderedMap<String, RFC9651BareItem>()
        for (key, value) in pairs { map[key] = value }
        return map
    }

    static func parseDictionary(_ value: String) throws -> Dictionary {
        var parser = StructuredFieldValueParser(Array(value.utf8))
        return try parser.parseDictionaryFieldValue()
    }

    static func parseList(_ value: String) throws -> [ItemOrInnerList] {
        var parser = StructuredFieldValueParser(Array(value.utf8))
        return try parser.parseListFieldValue()
    }

    static func parseItem(_ value: String) throws -> Item {
        var parser = StructuredFieldValueParser(Array(value.utf8))
        return try parser.parseItemFieldValue()
    }

    static func serialize(_ dictionary: Dictionary) throws -> String {
        var serializer = StructuredFieldValueSerializer()
        return String(decoding: try serializer.writeDictionaryFieldValue(dictionary), as: UTF8.self)
    }

    static func serialize(_ list: [ItemOrInnerList]) throws -> String {
        var serializer = StructuredFieldValueSerializer()
        return String(decoding: try serializer.writeListFieldValue(list), as: UTF8.self)
    }

    static func serialize(_ item: Item) throws -> String {
        var serializer = StructuredFieldValueSerializer()
        return String(decoding: try serializer.writeItemFieldValue(item), as: UTF8.self)
    }

    /// A dictionary member's value as it would be serialized on its own: an item, or an inner
    /// list with its parameters ([RFC 9421 §2.1.2](https://www.rfc-editor.org/rfc/rfc9421#section-2.1.2)).
    static func serialize(member: ItemOrInnerList) throws -> String {
        switch member {
        case .item(let item): try serialize(item)
        case .innerList: try serialize([member])
        }
    }

    /// Parses `value` as `type` and serializes it again: the strict, canonical form
    /// ([RFC 9421 §2.1.1](https://www.rfc-editor.org/rfc/rfc9421#section-2.1.1)).
    static func reserialize(_ value: String, as type: TopLevel) throws -> String {
        switch type {
        case .dictionary: try serialize(parseDictionary(value))
        case .list: try serialize(parseList(value))
        case .item: try serialize(parseItem(value))
        }
    }
}
