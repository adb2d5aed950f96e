/// What a command says about itself: its name on the command line, a one-line abstract, a
/// longer discussion for its help, its subcommands and, for the root, its version.
public struct CommandConfiguration {
    /// The word that selects it (`run`); the root's is the executable's name.
    public var commandName: String
    /// One line, in the parent's list of subcommands and at the top of the help.
    public var abstract: String
    /// Paragraphs after the options in the help: exit statuses, examples.
    public var discussion: String
    /// The commands under it, in the order the help lists them.
    public var subcommands: [any ParsableCommand.Type]
    /// What `--version` prints; nil: no `--version`.
    public var version: String?

    /// A configuration; only the name is needed.
    public init(
        commandName: String, abstract: String = "", discussion: String = "", subcommands: [any ParsableCommand.Type] = [],
        version: String? = nil
    ) {
        self.commandName = commandName
        self.abstract = abstract
        self.discussion = discussion
        self.subcommands = subcommands
        self.version = version
    }
}
