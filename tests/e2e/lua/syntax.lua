-- does not compile: one clear line before the run
function request( return "x" end
