/// The usage lines and help text of a command, generated from its declarations.
enum HelpGenerator {
    /// Where help texts start.
    static let column = 30
    /// The width help is wrapped to.
    static let width = 100

    /// `frameflow run`: the names along `path`.
    static func commandName(_ path: [any ParsableCommand.Type]) -> String {
        path.map { $0.configuration.commandName }.joined(separator: " ")
    }

    /// One usage line for error messages: the required arguments, the rest as `[<options>]`.
    static func shortUsage(for path: [any ParsableCommand.Type]) -> String {
        guard let type = path.last else { return "" }
        let definitions = collectDefinitions(of: type.init()).filter { !$0.isHidden }
        var parts = [commandName(path)]
        if !type.configuration.subcommands.isEmpty && definitions.allSatisfy({ $0.kind != .positional }) { parts.append("<command>") }
        parts += definitions.filter { $0.isRequired || $0.kind == .positional }.map(\.synopsis)
        if definitions.contains(where: { !$0.isRequired && $0.kind != .positional }) { parts.append("[<options>]") }
        return "usage: " + parts.joined(separator: " ") + "  (\(commandName(path)) --help for more)"
    }

    /// The full help: usage, abstract, arguments, options, subcommands, discussion.
    static func help(for path: [any ParsableCommand.Type]) -> String {
        guard let type = path.last else { return "" }
        let configuration = type.configuration
        let definitions = collectDefinitions(of: type.init()).filter { !$0.isHidden }
        let name = commandName(path)
        var lines: [String] = []
        let subcommands = configuration.subcommands
        if !subcommands.isEmpty { lines.append("usage: \(name) <command> [<options>]") }
        if subcommands.isEmpty || !definitions.isEmpty {
            // Positionals after options, as one writes them: options first only when both are long.
            let synopsis =
                definitions.filter { $0.kind == .positional }.map(\.synopsis) + definitions.filter { $0.kind != .positional }.map(\.synopsis)
            let prefix = subcommands.isEmpty ? "usage: \(name)" : "       \(name)"
            lines += wrap(words: [prefix] + synopsis, indent: String(repeating: " ", count: prefix.count + 1))
        }
        if !configuration.abstract.isEmpty { lines += ["", configuration.abstract] }
        let arguments = definitions.filter { $0.kind == .positional }
        if !arguments.isEmpty {
            lines += ["", "arguments:"]
            for d in arguments { lines += entry(d.valueName + (d.isRepeatable ? "..." : ""), details(d)) }
        }
        lines += ["", "options:"]
        for d in definitions where d.kind != .positional {
            lines += entry(d.kind == .flag ? d.displayName : "\(d.displayName) \(d.valueName)", details(d))
        }
        if path.count == 1, configuration.version != nil { lines += entry("--version", "print the version") }
        lines += entry("-h, --help", "show this help")
        if !subcommands.isEmpty {
            lines += ["", "commands:"]
            for sub in subcommands { lines += entry(sub.configuration.commandName, sub.configuration.abstract) }
            lines += ["", "\(name) help <command> (or \(name) <command> --help) describes a command."]
        }
        if !configuration.discussion.isEmpty { lines += ["", configuration.discussion] }
        return lines.joined(separator: "\n")
    }

    /// A definition's help with what the help line adds: allowed values, default, repeatable.
    static func details(_ d: ArgumentDefinition) -> String {
        var text = d.help
        if let allowed = d.allowedValues { text += " (\(allowed.joined(separator: "|")))" }
        if let value = d.defaultDescription, !value.isEmpty { text += " (default: \(value))" }
        if d.isRepeatable && d.kind == .option { text += " (repeatable)" }
        return text
    }

    /// `  NAME   help…`, the help wrapped under `column`.
    static func entry(_ label: String, _ help: String) -> [String] {
        let pad = String(repeating: " ", count: column)
        var first = "  " + label
        var lines: [String] = []
        if first.count + 2 > column {
            lines.append(first)
            first = pad
        } else {
            first += String(repeating: " ", count: column - first.count)
        }
        var wrapped: [String] = []
        for paragraph in help.split(separator: "\n", omittingEmptySubsequences: false) {
            wrapped += wrap(words: paragraph.split(separator: " ").map(String.init), indent: "", width: width - column)
        }
        for (k, text) in wrapped.enumerated() { lines.append((k == 0 ? first : pad) + text) }
        if wrapped.isEmpty { lines.append(first) }
        return lines
    }

    /// `words` joined by spaces in lines of at most `width`, continuation lines indented.
    static func wrap(words: [String], indent: String, width: Int = HelpGenerator.width) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in words {
            if line.isEmpty {
                line = (lines.isEmpty ? "" : indent) + word
            } else if line.count + 1 + word.count > width {
                lines.append(line)
                line = indent + word
            } else {
                line += " " + word
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
