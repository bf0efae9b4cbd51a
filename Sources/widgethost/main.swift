import WidgetHost

WidgetHostCommand.main(catalog: .builtin(), io: .live())
