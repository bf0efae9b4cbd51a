import WidgetHost

WidgetHostCommand.main(catalog: .builtin())
