import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a secret option's value comes from, so that no secret has to be typed on the command
/// line: the option's value, `-` for one line of standard input, or an environment variable.
enum SecretInput {
    /// Every option whose value is a secret, as `remote-auth` spells it; their values are blanked
    /// in the process list after parsing (see ``scrubArguments()``).
    static let secretOptions: Set<String> = [
        "--user", "-u", "--password", "--consumer-secret", "--token-secret", "--device-consumer-secret",
        "--device-token", "--device-token-secret", "--proxy-user", "-U", "--client-secret", "--security-token",
    ]

    /// The secret: `value` itself, one line of standard input when `value` is `-`, else the
    /// environment variable `variable` (`nil` when that is unset too).
    static func resolve(_ value: String?, environment variable: String?, option: String) throws -> String? {
        if value == "-" {
            guard let line = readLine(strippingNewline: true) else {
                throw CLIFailure("\(option) -: standard input is empty; write the secret to it, one line")
            }
            // An empty line is no secret: sending one would authenticate with nothing.
            guard !line.isEmpty else {
                throw CLIFailure("\(option) -: the line read from standard input is empty; write the secret to it")
            }
            return line
        }
        if let value { return value }
        guard let variable else { return nil }
        return ProcessInfo.processInfo.environment[variable]
    }

    /// Reads a password on the terminal without echo, as curl does for `--user USER`; `nil`
    /// when standard input is not a terminal.
    static func prompt(_ text: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        Terminal.writeError(text)
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        let line = readLine(strippingNewline: true)
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        Terminal.writeError("\n")
        return line
    }

    /// Overwrites, in the process's own argument memory, the value of every secret option, so
    /// that `ps` and `/proc/PID/cmdline` show `*****` instead (curl blanks its arguments the same
    /// way), in every spelling: `--user V`, `--user=V`, `-u V`, `-uV`, and clusters (`-su V`,
    /// `-sSuV`). Call first thing in `main`, once `CommandLine.arguments` has made its copy.
    ///
    /// Other local users can still read the arguments from the start of the process until
    /// this runs (the time it takes to load the Swift runtime): blanking narrows the window,
    /// it cannot close it. The environment (`REMOTE_AUTH_PASSWORD`, …) and `-` (stdin) keep a
    /// secret off the command line altogether.
    static func scrubArguments() {
        let argc = Int(CommandLine.argc)
        let argv = CommandLine.unsafeArgv
        var index = 1
        while index < argc {
            guard let argument = argv[index] else { break }
            let text = String(cString: argument)
            if text == "--" { break }
            if text.hasPrefix("--") {
                if secretOptions.contains(text), index + 1 < argc, let value = argv[index + 1] {
                    blank(value, from: 0)
                    index += 2
                    continue
                }
                if let equals = text.firstIndex(of: "="), secretOptions.contains(String(text[..<equals])) {
                    blank(argument, from: text.utf8.distance(from: text.startIndex, to: equals) + 1)
                }
                index += 1
                continue
            }
            // `-u=V` (ArgumentParser's spelling): blanked after the `=`.
            if text.count > 3, text.hasPrefix("-"), !text.hasPrefix("--"),
                let option = text.dropFirst().first, ShortOptions.secret.contains(option),
                text.dropFirst(2).first == "="
            {
                blank(argument, from: 3)
                index += 1
                continue
            }
            if let (options, attached) = ShortOptions.cluster(text), let last = options.last,
                ShortOptions.valued.contains(last)
            {
                if let attached {
                    if ShortOptions.secret.contains(last) {
                        blank(argument, from: text.utf8.count - attached.utf8.count)
                    }
                    index += 1
                } else {
                    if ShortOptions.secret.contains(last), index + 1 < argc, let value = argv[index + 1] {
                        blank(value, from: 0)
                    }
                    index += 2
                }
                continue
            }
            index += 1
        }
    }

    /// Writes `*` over the bytes of the C string `argument` from byte `offset` on.
    private static func blank(_ argument: UnsafeMutablePointer<CChar>, from offset: Int) {
        var position = offset
        while argument[position] != 0 {
            argument[position] = CChar(UInt8(ascii: "*"))
            position += 1
        }
    }
}
