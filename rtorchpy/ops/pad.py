def nnf_pad(input, pad, mode="constant", value=None):
    raise NotImplementedError
