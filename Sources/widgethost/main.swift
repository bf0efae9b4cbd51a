import WidgetHost

WidgetHostCommand.main(io: .live())
