-- delay(): 50 ms between the requests of each connection.
function delay() return 50 end
