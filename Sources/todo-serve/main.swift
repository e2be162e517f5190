import TodoServe

await ServeMain.run()
