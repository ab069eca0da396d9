import BusContract

/// What any plugin may answer so the dashboard shows it: `panel`, a display view the presenter renders as a
/// page of its own while the plugin is live (docs/protocol.md, "Plugin panels").
public enum PluginAPI {
    /// `panel`: the plugin's page, built now.
    public static let panel = RPCMethod<NoParams, Panel>("panel")
}

/// A plugin's page: a title, sections of text, tables and forms, and the topics of the plugin's stream whose
/// messages make the page stale (the dashboard reloads it live when one arrives).
public struct Panel: Codable, Sendable, Equatable {
    /// The page's title, and its link's text in the navigation, e.g. `Alerts`.
    public var title: String
    /// One line under the title.
    public var summary: String?
    /// The sections, top to bottom.
    public var sections: [PanelSection]
    /// Topic prefixes on the plugin's stream (its PUB socket) whose messages change the page, e.g. `alert.`.
    public var topics: [String]

    /// A panel.
    public init(title: String, summary: String? = nil, sections: [PanelSection], topics: [String] = []) {
        self.title = title
        self.summary = summary
        self.sections = sections
        self.topics = topics
    }
}

/// One section of a panel: a heading, and any of a paragraph, a table and a form, shown in that order.
public struct PanelSection: Codable, Sendable, Equatable {
    /// The heading.
    public var title: String?
    /// A paragraph of plain text.
    public var text: String?
    /// A table.
    public var table: PanelTable?
    /// A form whose submit calls one of the plugin's methods.
    public var form: PanelForm?

    /// A section.
    public init(title: String? = nil, text: String? = nil, table: PanelTable? = nil, form: PanelForm? = nil) {
        self.title = title
        self.text = text
        self.table = table
        self.form = form
    }
}

/// A table of plain-text cells; each row may carry one action (a form of hidden fields and a button, e.g. Remove).
public struct PanelTable: Codable, Sendable, Equatable {
    /// The column headings.
    public var columns: [String]
    /// The rows, each as many cells as there are columns.
    public var rows: [PanelRow]
    /// What the table says when it has no rows.
    public var empty: String?

    /// A table.
    public init(columns: [String], rows: [PanelRow], empty: String? = nil) {
        self.columns = columns
        self.rows = rows
        self.empty = empty
    }
}

/// One row of a ``PanelTable``.
public struct PanelRow: Codable, Sendable, Equatable {
    /// The cells' text, one per column.
    public var cells: [String]
    /// A button at the row's end that submits this form.
    public var action: PanelForm?

    /// A row.
    public init(cells: [String], action: PanelForm? = nil) {
        self.cells = cells
        self.action = action
    }
}

/// A form: submitting it calls `method` on the plugin with one parameter per field that has a value (an empty
/// field is left out), and the dashboard shows the plugin's answer or its error.
public struct PanelForm: Codable, Sendable, Equatable {
    /// The plugin's method the submit calls, e.g. `alerts.add`.
    public var method: String
    /// The button's text.
    public var submit: String
    /// The fields, in order.
    public var fields: [PanelField]
    /// Whether the dashboard asks "are you sure?" before calling (a removal).
    public var confirm: Bool?

    /// A form.
    public init(method: String, submit: String, fields: [PanelField], confirm: Bool? = nil) {
        self.method = method
        self.submit = submit
        self.fields = fields
        self.confirm = confirm
    }
}

/// One field of a ``PanelForm``; its `name` is the JSON-RPC parameter it fills.
public struct PanelField: Codable, Sendable, Equatable {
    /// What the field holds and how its value goes into the params.
    public enum Kind: String, Codable, Sendable, Equatable, CaseIterable {
        /// Free text, sent as a JSON string.
        case text
        /// A decimal number, sent as a JSON string (money on the wire is a decimal string).
        case decimal
        /// A whole number, sent as a JSON number.
        case integer
        /// One of `options`, sent as a JSON string.
        case select
        /// A fixed `value` the user does not see, sent as a JSON string (a row's id).
        case hidden
    }

    /// The parameter's name, e.g. `asset`.
    public var name: String
    /// The label shown beside it; none for a hidden field.
    public var label: String?
    /// Its kind.
    public var kind: Kind
    /// Its starting value (a hidden field's only value).
    public var value: String?
    /// A select's choices.
    public var options: [String]?
    /// Whether the form cannot be sent without it.
    public var required: Bool?
    /// A hint shown in the empty field, e.g. `BTC`.
    public var placeholder: String?

    /// A field.
    public init(
        name: String, label: String? = nil, kind: Kind = .text, value: String? = nil, options: [String]? = nil,
        required: Bool? = nil, placeholder: String? = nil
    ) {
        self.name = name
        self.label = label
        self.kind = kind
        self.value = value
        self.options = options
        self.required = required
        self.placeholder = placeholder
    }
}
