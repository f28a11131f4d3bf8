"""Neural-network modules (``nn_*``), parameter initialization (``nn_init_*``) and gradient
clipping (``nn_utils_*``), with R torch's names and PyTorch's semantics. See ``module.py`` for
how a model is written."""
from .activation import *  # noqa: F401,F403
from .activation import __all__ as _activation
from .containers import *  # noqa: F401,F403
from .containers import __all__ as _containers
from .conv import *  # noqa: F401,F403
from .conv import __all__ as _conv
from .dropout import *  # noqa: F401,F403
from .dropout import __all__ as _dropout
from .embedding import *  # noqa: F401,F403
from .embedding import __all__ as _embedding
from .init import *  # noqa: F401,F403
from .init import __all__ as _init
from .linear import *  # noqa: F401,F403
from .linear import __all__ as _linear
from .loss import *  # noqa: F401,F403
from .loss import __all__ as _loss
from .module import *  # noqa: F401,F403
from .module import __all__ as _module
from .pooling import *  # noqa: F401,F403
from .pooling import __all__ as _pooling
from .normalization import *  # noqa: F401,F403
from .normalization import __all__ as _normalization
from .utils import *  # noqa: F401,F403
from .utils import __all__ as _utils
from .rnn import *  # noqa: F401,F403
from .rnn import __all__ as _rnn
from .rnn_utils import *  # noqa: F401,F403
from .rnn_utils import __all__ as _rnn_utils
from .transformer import *  # noqa: F401,F403
from .transformer import __all__ as _transformer
from .activation_more import *  # noqa: F401,F403
from .activation_more import __all__ as _activation_more
from .loss_more import *  # noqa: F401,F403
from .loss_more import __all__ as _loss_more
from .layers_more import *  # noqa: F401,F403
from .layers_more import __all__ as _layers_more
from .weight_norm import *  # noqa: F401,F403
from .weight_norm import __all__ as _weight_norm

__all__ = sorted(set(_activation + _containers + _conv + _dropout + _embedding + _init + _linear +
                     _loss + _module + _normalization + _pooling + _utils + _rnn + _rnn_utils +
                     _transformer + _activation_more +
                     _loss_more + _layers_more + _weight_norm))
