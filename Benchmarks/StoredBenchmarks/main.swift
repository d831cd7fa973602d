print("stored-bench: coming")
