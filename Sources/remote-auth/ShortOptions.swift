/// curl's spellings of short options, which ArgumentParser does not read alone: a cluster of
/// flags (`-sS`), a cluster that ends with an option taking a value (`-su USER:PASS`), and a
/// value attached to its option (`-ualice:pw`, `-sSualice:pw`, `-XPOST`). ``normalize(_:)``
/// writes each as separate arguments before parsing, so that `-ualice:pw URL` takes
/// `alice:pw` as the user and `URL` as the URL, as curl does.
enum ShortOptions {
    /// The short options that take a value.
    static let valued: Set<Character> = ["X", "H", "d", "u", "A", "o", "x", "U", "T"]
    /// The short options that are flags.
    static let flags: Set<Character> = ["i", "s", "S", "f", "L", "v", "k"]
    /// The short options whose value is a secret (blanked in the process list).
    static let secret: Set<Character> = ["u", "U"]

    /// One argument read as a cluster: the options in it, and the value attached to the last
    /// one (`nil` when it has none, or when it is a flag); `nil` when `argument` is not a
    /// cluster of known short options (a long option, a value, `-`, a negative number).
    static func cluster(_ argument: String) -> (options: [Character], attached: Substring?)? {
        guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count >= 2 else { return nil }
        var options: [Character] = []
        var rest = argument.dropFirst()
        while let option = rest.first {
            rest = rest.dropFirst()
            if flags.contains(option) {
                options.append(option)
            } else if valued.contains(option) {
                options.append(option)
                // `-d=VALUE` is left to ArgumentParser, which reads VALUE (scripts rely on it,
                // whatever VALUE starts with); curl would send `=VALUE`.
                if rest.first == "=" { return nil }
                return (options, rest.isEmpty ? nil : rest)
            } else {
                return nil
            }
        }
        return (options, nil)
    }

    /// `arguments` with every cluster of short options written one option per argument and an
    /// attached value as an argument of its own; nothing after `--` is touched.
    static func normalize(_ arguments: [String]) -> [String] {
        var output: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                output.append(contentsOf: arguments[(index - 1)...])
                break
            }
            guard let (options, attached) = cluster(argument), options.count > 1 || attached != nil else {
                output.append(argument)
                // A value that follows its option is a value, whatever it looks like.
                if let (options, attached) = cluster(argument), attached == nil, let last = options.last,
                    valued.contains(last), index < arguments.count
                {
                    output.append(arguments[index])
                    index += 1
                }
                continue
            }
            output.append(contentsOf: options.map { "-\($0)" })
            if let attached {
                output.append(String(attached))
            } else if let last = options.last, valued.contains(last), index < arguments.count {
                output.append(arguments[index])
                index += 1
            }
        }
        return output
    }
}
