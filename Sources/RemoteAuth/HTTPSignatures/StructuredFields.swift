import RawStructuredFieldValues

/// The structured field codec of this folder (RFC 8941, as updated by RFC 9651): a thin layer
/// over swift-http-structured-headers that reads and writes `String`s.
enum StructuredFields {
    typealias Dictionary = OrderedMap<String, ItemOrInnerList>

    /// The three top-level types of [RFC 8941 §3](https://www.rfc-editor.org/rfc/rfc8941#section-3).
    enum TopLevel: Sendable, Hashable {
        case list, dictionary, item
    }

    /// An `OrderedMap` of `pairs`, in order, with the map's own semantics (a key given again
    /// keeps its first place and takes the later value).
    ///
    /// Built with one `init(dictionaryLiteral:)` when the keys are distinct and few: the map's
    /// subscript setter is generic and not specialized across modules, so each call looks up
    /// generic metadata at run time (about 4,000 instructions here, where the signer sets four
    /// or five parameters per signature).
    static func orderedMap<Value>(_ pairs: [(String, Value)]) -> OrderedMap<String, Value> {
        var distinct = true
        for index in pairs.indices where distinct {
            for earlier in pairs[..<index] where earlier.0 == pairs[index].0 { distinct = false }
        }
        if distinct {
            switch pairs.count {
            case 0: return [:]
            case 1: return [pairs[0].0: pairs[0].1]
            case 2: return [pairs[0].0: pairs[0].1, pairs[1].0: pairs[1].1]
            case 3: return [pairs[0].0: pairs[0].1, pairs[1].0: pairs[1].1, pairs[2].0: pairs[2].1]
            case 4:
                return [pairs[0].0: pairs[0].1, pairs[1].0: pairs[1].1, pairs[2].0: pairs[2].1, pairs[3].0: pairs[3].1]
            case 5:
                return [
                    pairs[0].0: pairs[0].1, pairs[1].0: pairs[1].1, pairs[2].0: pairs[2].1, pairs[3].0: pairs[3].1,
                    pairs[4].0: pairs[4].1,
                ]
            case 6:
                return [
                    pairs[0].0: pairs[0].1, pairs[1].0: pairs[1].1, pairs[2].0: pairs[2].1, pairs[3].0: pairs[3].1,
                    pairs[4].0: pairs[4].1, pairs[5].0: pairs[5].1,
                ]
            default: break
            }
        }
        var map = OrderedMap<String, Value>()
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
